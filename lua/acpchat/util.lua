local M = {}

local note = require("acpchat.notify")
M.notify, M.one_line = note.notify, note.one_line

--- `fn` for a user command: a failure becomes one notification line (details in :AcpChatLog),
--- never a stack trace or a hit-enter prompt.
function M.guard(what, fn)
  return function(...)
    local ok, err = xpcall(fn, debug.traceback, ...)
    if not ok then
      local c = require("acpchat.chat.registry").current()
      require("acpchat.host.bridge").fail(what, err, c and c.id)
    end
  end
end

return M
