-- Signing in: the agent's auth methods in vim.ui.select; `terminal` methods run the agent's
-- own command in a :terminal, and the session is retried when it exits.
local M = require("acpchat.questions").new()
local reply = M.reply

function M.choose(_, key, methods)
  M.open[key] = true
  vim.schedule(function()
    vim.ui.select(methods, {
      prompt = "The agent asks you to sign in:",
      kind = "acpchat_auth",
      format_item = function(m)
        local extra = m.description and (" — " .. m.description) or ""
        return m.name .. (m.type == "terminal" and " (in a terminal)" or "") .. extra
      end,
    }, function(m)
      reply(key, m and m.id or nil)
    end)
  end)
end

--- Run the sign-in command in a terminal tab; answer with its exit code when it ends.
function M.terminal(_, key, spec)
  M.open[key] = true
  vim.schedule(function()
    vim.cmd("tabnew")
    local buf = vim.api.nvim_get_current_buf()
    local cmd = vim.list_extend({ spec.command }, spec.args or {})
    local opts = {
      cwd = spec.cwd,
      env = spec.env,
      on_exit = function(_, code)
        vim.schedule(function()
          reply(key, code)
        end)
      end,
    }
    local ok, err = pcall(function()
      if vim.fn.has("nvim-0.11") == 1 then
        opts.term = true
        vim.fn.jobstart(cmd, opts)
      else
        vim.fn.termopen(cmd, opts)
      end
    end)
    if not ok then
      require("acpchat.util").notify("acpchat: could not start the sign-in terminal: " .. tostring(err), vim.log.levels.ERROR)
      return reply(key, -1)
    end
    pcall(vim.api.nvim_buf_set_name, buf, "acpchat://sign-in/" .. (spec.title or "agent"))
    vim.cmd("startinsert")
  end)
end

return M
