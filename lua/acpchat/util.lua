local M = {}

local note = require("acpchat.notify")
local registry = require("acpchat.chat.registry")
local bridge = require("acpchat.host.bridge")
M.notify, M.one_line = note.notify, note.one_line

--- `fn` for a user command: a failure becomes one notification line (details in :AcpChatLog),
--- never a stack trace or a hit-enter prompt.
---@generic F: function
---@param what string
---@param fn F
---@return F
function M.guard(what, fn)
  return function(...)
    local ok, err = xpcall(fn, debug.traceback, ...)
    if not ok then
      local c = registry.current()
      bridge.fail(what, err, c and c.id)
    end
  end
end

return M
