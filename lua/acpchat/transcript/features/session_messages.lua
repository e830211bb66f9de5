-- Messages between sessions (src/session/features/session-messages.ts): a message this session
-- sent to or received from another, as lines and highlights. Pure (`text` is handed in).
local tb = require("acpchat.transcript.text_builder")
local split, builder = tb.split, tb.builder

local M = {}

---@param v acpchat.wire.FeatureBlockView.session_message
---@return acpchat.Builder
function M.session_message(v, text)
  local b = builder()
  local who = v.peer and text.flat(v.peer, 200) or "another session"
  local head = v.direction == "to" and ("→ message to " .. who)
    or v.direction == "from" and ("← message from " .. who)
    or ("↔ message (" .. who .. ")")
  b.add(head, "AcpChatReply")
  for _, l in ipairs(split(v.text)) do
    b.add("  " .. l)
  end
  if v.omitted and v.omitted > 0 then
    b.add(string.format("  … %d more characters not kept", v.omitted), "AcpChatNote")
  end
  return b
end

return M
