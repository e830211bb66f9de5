-- A user command's or key's failure as one notification line, logged with the current chat
-- (details in :AcpChatLog): never a stack trace or a hit-enter prompt. Here rather than in
-- util.lua, which stays a leaf that every layer may require.
local registry = require("acpchat.chat.registry")
local bridge = require("acpchat.host.bridge")

local M = {}

--- `fn` for a user command or a key.
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
