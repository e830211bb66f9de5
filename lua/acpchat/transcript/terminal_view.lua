-- The full output of a chat's terminal, in a buffer that stays after the terminal is released.
local bridge = require("acpchat.host.bridge")
local util = require("acpchat.util")
local follow = require("acpchat.editor.follow")

local api = vim.api
local M = {}

---@param chat acpchat.Chat
function M.show(chat, terminal_id)
  bridge.call("terminal", { chat = chat.id, terminal = terminal_id }, function(err, terms)
    ---@cast terms acpchat.reply.Terminal
    if err or #terms == 0 then
      return util.notify("acpchat: no terminal output" .. (err and (": " .. err) or ""), vim.log.levels.WARN)
    end
    local t = terms[#terms]
    local name = string.format("acpchat://%d/terminal/%s", chat.id, t.id)
    local buf = vim.fn.bufnr(name)
    if buf == -1 then
      buf = api.nvim_create_buf(false, true)
      api.nvim_buf_set_name(buf, name)
      vim.bo[buf].buftype = "nofile"
      vim.bo[buf].bufhidden = "hide"
      vim.bo[buf].swapfile = false
      vim.bo[buf].filetype = "acpchat-terminal"
      vim.keymap.set(
        "n",
        "q",
        "<Cmd>close<CR>",
        { buffer = buf, nowait = true, silent = true, desc = "acpchat: close the output" }
      )
    end
    local lines = vim.split(t.output, "\n", { plain = true })
    if t.truncated then
      -- The output's start was dropped mid-line: say so instead of a cut first line.
      if #lines > 1 then
        table.remove(lines, 1)
      end
      table.insert(lines, 1, "[earlier output dropped: over terminal.output_limit_bytes]")
    end
    lines[#lines + 1] = "[" .. (t.exit or "running") .. (t.failed and ", failed" or "") .. "]"
    vim.bo[buf].modifiable = true
    api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    -- Above the chat, in the editor area: the prompt window keeps its height.
    local w = follow.editor_window(chat)
    if w then
      api.nvim_set_current_win(w)
    end
    vim.cmd("belowright split")
    api.nvim_win_set_buf(0, buf)
    -- Output is read, not typed into (the prompt may have left Insert mode on).
    vim.cmd("stopinsert")
  end)
end

return M
