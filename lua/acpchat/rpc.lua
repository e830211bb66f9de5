-- Calls into the Node remote plugin. The first call starts the node host (cold start).
local M = {}

local function friendly(e)
  local msg = tostring(e)
  if msg:find("Unknown function: AcpChat", 1, true) or msg:find("E117", 1, true) then
    return "acpchat: the remote plugin is not registered. Run :checkhealth acpchat"
  end
  -- Strip Vim's wrapping of remote errors down to the plugin's own message.
  return (msg:gsub("^.-Error in plugin for function:[%w_]+: ", ""))
end

--- Synchronous call: returns the result, or raises with a readable message.
function M.request(method, params)
  local ok, res = pcall(vim.fn.AcpChatRequest, method, params or vim.empty_dict())
  if not ok then
    error(friendly(res), 0)
  end
  return res
end

--- Asynchronous call: nothing comes back.
function M.notify(method, params)
  local ok, res = pcall(vim.fn.AcpChatNotify, method, params or vim.empty_dict())
  if not ok then
    require("acpchat.util").notify(friendly(res), vim.log.levels.ERROR)
  end
end

return M
