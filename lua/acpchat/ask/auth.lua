-- Signing in: the agent's auth methods in vim.ui.select; `terminal` methods run the agent's
-- own command in a :terminal, and the session is retried when it exits.
local questions = require("acpchat.ask.questions")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local reply = questions.reply
local flat = require("acpchat.transcript.text").flat
local M = {}

--- The sign-in windows still open, by question key.
local terminals = {}

local function unguarded(fn)
  return fn
end

---@param chat_id integer
---@param key string
---@param q acpchat.question.Auth
---@param guard? fun(fn: function): function  ask.lua's: a failure answers the question
function M.ask(chat_id, key, q, guard)
  guard = guard or unguarded
  if q.how == "terminal" then
    return M.terminal(chat_id, key, q, guard)
  end
  M.choose(chat_id, key, q.methods, guard)
end

--- The agent's methods, redacted by Node and drawn on one line each; the answer is a position.
---@param chat_id integer
---@param key string
---@param methods { name: string, description?: string, terminal: boolean }[] acpchat.question.Auth.choose.methods
---@param guard? fun(fn: function): function  ask.lua's: a failure answers the question
function M.choose(chat_id, key, methods, guard)
  guard = guard or unguarded
  local items = {}
  for i, m in ipairs(methods or {}) do
    items[i] = { index = i, m = m }
  end
  vim.schedule(guard(function()
    vim.ui.select(
      items,
      {
        prompt = registry.who(chat_id) .. " The agent asks you to sign in:",
        kind = "acpchat_auth",
        format_item = function(it)
          local m = it.m
          local extra = m.description and (" — " .. flat(m.description, 300)) or ""
          return flat(m.name, 120) .. (m.terminal and " (in a terminal)" or "") .. extra
        end,
      },
      guard(function(it)
        reply(key, it and it.index or nil)
      end)
    )
  end))
end

--- Run the sign-in command in a terminal tab; answer with its exit code when it ends.
---@param key string
---@param spec acpchat.question.Auth.terminal
---@param guard? fun(fn: function): function  ask.lua's: a failure answers the question
function M.terminal(_, key, spec, guard)
  vim.schedule((guard or unguarded)(function()
    vim.cmd("tabnew")
    local buf = vim.api.nvim_get_current_buf()
    local cmd = vim.list_extend({ spec.command }, spec.args or {})
    local env = {}
    for _, e in ipairs(spec.env or {}) do
      env[e.name] = e.value
    end
    -- `env -u`: the sign-in command must not get the editor's RPC address ($NVIM) either.
    if vim.fn.executable("env") == 1 then
      cmd = vim.list_extend({ "env", "-u", "NVIM", "-u", "NVIM_LISTEN_ADDRESS" }, cmd)
    end
    terminals[key] = buf
    local opts = {
      cwd = spec.cwd,
      env = env,
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
        -- jobstart()'s `term` needs Neovim 0.11; 0.10 is supported.
        ---@diagnostic disable-next-line: deprecated
        vim.fn.termopen(cmd, opts)
      end
    end)
    if not ok then
      util.notify("acpchat: could not start the sign-in terminal: " .. tostring(err), vim.log.levels.ERROR)
      return reply(key, -1)
    end
    pcall(vim.api.nvim_buf_set_name, buf, "acpchat://sign-in/" .. flat(spec.title or "agent", 80))
    vim.cmd("startinsert")
  end))
end

--- Withdrawn (the chat closed): the sign-in terminal goes away with its job.
function M.close(key)
  local buf = terminals[key]
  terminals[key] = nil
  if buf and vim.api.nvim_buf_is_valid(buf) then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

return M
