-- Subagents (src/session/features/subagents.ts): a child session's block, its header and its
-- transcript nested under a gutter, as lines and highlights. Pure, like text.lua, which hands
-- itself in (`text`) so that nothing requires back. subagent_view.lua folds it and opens its
-- own view.
local tb = require("acpchat.transcript.text_builder")
local builder = tb.builder

local M = {}

--- The gutter of a subagent's nested transcript.
M.gutter = "  │ "

--- How a subagent's state reads: word, highlight group.
M.state_words = {
  running = { "running…", "AcpChatToolRunning" },
  idle = { "idle", "AcpChatToolDone" },
  requires_action = { "needs your action", "AcpChatWarn" },
  unknown = { "state unknown", "AcpChatToolPending" },
}

--- The key that opens a subagent's own view, when mapped (for the hint).
local function open_key()
  return tb.key("open_subagent")
end

--- The lines above a subagent's nested transcript (the header, and its description): the fold
--- covers the rest.
--- `own`: for the subagent's own view (no hint of the key that opens it).
function M.subagent_head(v, text, own)
  local b = builder()
  local word, group =
    unpack(M.state_words[v.state] or (v.state and { text.flat(v.state, 40), "AcpChatToolPending" }) or { "", nil })
  if v.state == "idle" and v.stop_reason and v.stop_reason ~= "end_turn" then
    word = word .. " · " .. text.flat(v.stop_reason, 40)
  end
  local name = (v.title and v.title ~= "") and v.title or v.session_id
  local head = "⑂ subagent · " .. text.flat(name, 200)
  local key = not own and not v.nested and open_key() or nil
  local line = head .. (word ~= "" and (" · " .. word) or "") .. (key and ("  (" .. key .. ": open)") or "")
  if own and v.can_cancel then
    -- Its own view: <C-c> stops its current work (the agent allowed it).
    line = line .. "  (<C-c>: stop it)"
  end
  local row = b.add(line, "AcpChatToolTitle")
  if group then
    b.hl(row, #head + #" · ", #head + #" · " + #word, group)
  end
  if v.description and v.description ~= "" then
    b.add("  " .. text.flat(v.description, 300), "AcpChatNote")
  end
  return b
end

--- A child's blocks, each drawn by text.block under `prefix`, a blank gutter line between them.
function M.nested(b, views, text, prefix)
  for i, cv in ipairs(views or {}) do
    if i > 1 then
      b.add((prefix:gsub("%s+$", "")))
    end
    local lines, hls, line_hl = text.block(cv)
    local first = #b.lines
    for _, l in ipairs(lines) do
      b.add(prefix .. l)
    end
    for _, h in ipairs(hls or {}) do
      b.hl(first + h[1], h[2] + #prefix, h[3] == -1 and -1 or h[3] + #prefix, h[4])
    end
    if line_hl then
      for r = first, #b.lines - 1 do
        b.hl(r, #prefix, -1, line_hl)
      end
    end
  end
end

--- A subagent's block: its header, then its nested blocks (or how many there are).
function M.subagent(v, text)
  local b = M.subagent_head(v, text)
  if v.hidden and v.hidden > 0 and (not v.blocks or #v.blocks == 0) then
    -- Nested deeper than Node draws (NESTED_DEPTH): only how much there is.
    b.add(
      string.format("%s… %d block%s, nested too deep to show here", M.gutter, v.hidden, v.hidden == 1 and "" or "s"),
      "AcpChatToolFolded"
    )
    return b
  end
  if v.hidden and v.hidden > 0 then
    local key = not v.nested and open_key() or nil
    b.add(
      string.format(
        "%s… %d earlier block%s%s",
        M.gutter,
        v.hidden,
        v.hidden == 1 and "" or "s",
        key and (" (" .. key .. ": the whole session)") or ""
      ),
      "AcpChatToolFolded"
    )
  end
  if not v.blocks or #v.blocks == 0 then
    b.add(M.gutter .. "(nothing yet)", "AcpChatNote")
  else
    M.nested(b, v.blocks, text, M.gutter)
  end
  return b
end

return M
