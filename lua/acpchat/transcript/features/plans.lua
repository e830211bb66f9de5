-- Plans by id (src/session/features/plans.ts): a plan's block as lines and highlights, under its
-- id; entries, markdown or a file, or marked removed. Pure, like text.lua, which hands itself in
-- (`text`) so that nothing requires back.
local tb = require("acpchat.transcript.text_builder")
local split, builder = tb.split, tb.builder

local M = {}

---@param v acpchat.wire.FeatureBlockView.plan_doc
---@return acpchat.Builder
function M.plan_doc(v, text)
  local b = builder()
  local head = "Plan · " .. text.flat(v.plan_id, 80)
  if v.removed then
    b.add(head .. " (removed by the agent)", "AcpChatToolCancelled")
    return b
  end
  b.add(head, "AcpChatPlanTitle")
  if v.kind == "items" then
    text.plan_entries(b, v.entries)
  elseif v.kind == "markdown" then
    for _, l in ipairs(split(v.markdown)) do
      b.add("  " .. text.flat(l, 1000))
    end
  elseif v.kind == "file" then
    -- A location line: gf opens it (when it is a file inside the session's folder).
    b.add("  ↳ " .. text.flat(v.location or "?", 300), "AcpChatLocation")
  end
  if v.more and v.more > 0 then
    -- Node sends the first ones only (a plan is redrawn whole at each update).
    b.add(
      string.format(
        "  … %d more %s not shown",
        v.more,
        v.kind == "markdown" and (v.more == 1 and "line" or "lines") or (v.more == 1 and "entry" or "entries")
      ),
      "AcpChatNote"
    )
  end
  return b
end

return M
