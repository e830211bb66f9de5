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

--- The plugin's root folder (where package.json and node_modules live).
function M.root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

return M
