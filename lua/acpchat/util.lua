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

--- Run require(mod)[fn](...) for a notification from Node; an error there would otherwise be
--- lost (a notification has no caller), so it is shown.
function M.safe_call(mod, fn, ...)
  local ok, err = pcall(function(...)
    return require(mod)[fn](...)
  end, ...)
  if not ok then
    M.notify(string.format("acpchat: %s.%s failed: %s", mod, fn, tostring(err)), vim.log.levels.ERROR)
  end
end

return M
