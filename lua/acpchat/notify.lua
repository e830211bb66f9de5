-- Notifications: one line that fits, from any callback. A leaf module (bridge.lua uses it).
local M = {}

-- Neovim's own vim.notify, as it was when the plugin loaded (plugin/acpchat.lua requires this
-- module at startup). Notification plugins replace vim.notify; they show long text well.
local builtin = vim.notify

--- One line that fits the command line (the details are in :AcpChatLog and the transcript).
---@param msg any
---@return string
function M.one_line(msg)
  local line = tostring(msg):gsub("%s*\n%s*", " · ")
  local room = math.max(20, (vim.v.echospace or vim.o.columns) - 1)
  if vim.fn.strdisplaywidth(line) > room then
    line = vim.fn.strcharpart(line, 0, room - 1)
    while vim.fn.strdisplaywidth(line) > room - 1 do
      line = vim.fn.strcharpart(line, 0, vim.fn.strchars(line) - 1)
    end
    line = line .. "…"
  end
  return line
end

--- vim.notify, safe from any callback (fast events, RPC handlers), and never a hit-enter
--- prompt: Neovim's own notify echoes, and a message longer than the command line stops the
--- editor until Enter, so with it every note is one line that fits (the details are in the
--- transcript and :AcpChatLog). A notification plugin gets the whole text.
---@param msg string
---@param level (integer|string)?
function M.notify(msg, level)
  if type(level) == "string" then
    level = vim.log.levels[level:upper()] or vim.log.levels.INFO
  end
  vim.schedule(function()
    vim.notify(vim.notify == builtin and M.one_line(msg) or msg, level or vim.log.levels.INFO, { title = "acpchat" })
  end)
end

return M
