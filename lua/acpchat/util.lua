local M = {}

--- vim.notify, safe from any callback (fast events, RPC handlers).
function M.notify(msg, level)
  if type(level) == "string" then
    level = vim.log.levels[level:upper()] or vim.log.levels.INFO
  end
  vim.schedule(function()
    vim.notify(msg, level or vim.log.levels.INFO, { title = "acpchat" })
  end)
end

--- `fn` for a user command: a failure becomes one notification line (details in :AcpChatLog),
--- never a stack trace or a hit-enter prompt.
function M.guard(what, fn)
  return function(...)
    local ok, err = xpcall(fn, debug.traceback, ...)
    if not ok then
      local c = require("acpchat.registry").current()
      require("acpchat.bridge").fail(what, err, c and c.id)
    end
  end
end

return M
