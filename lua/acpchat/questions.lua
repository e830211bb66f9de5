-- Questions Node asks through Lua (permissions, sign-in, elicitation), by key. An answer goes
-- back once with AcpChatNotify("reply"); a question Node withdrew (cancelled turn, dead agent)
-- is forgotten and a late answer is dropped.
local M = {}

--- A set of open questions: `open[key]` holds what the asker wants to keep about each one.
function M.new()
  local q = { open = {} }
  function q.reply(key, value)
    if q.open[key] == nil then
      return
    end
    q.open[key] = nil
    require("acpchat.rpc").notify("reply", { key = key, value = value })
  end
  function q.dismiss(key)
    q.open[key] = nil
  end
  return q
end

return M
