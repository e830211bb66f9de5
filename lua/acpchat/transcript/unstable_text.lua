-- Text builders for the blocks of the unstable ACP additions (option `unstable`): a plan by id,
-- a subagent (a child session, its transcript nested under a gutter) and a message between
-- sessions. Pure, like text.lua, which hands itself in (`text`) so that nothing requires back.
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

local tb = require("acpchat.transcript.text_builder")
local split, builder = tb.split, tb.builder

--- The key that opens a subagent's own view, when mapped (for the hint).
local function open_key()
  return tb.key("open_subagent")
end

local function plan_doc(v, text)
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

local function subagent(v, text)
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

local function session_message(v, text)
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

--- Lines and highlights of a block of the unstable additions.
function M.block(v, text)
  local b
  if v.type == "plan_doc" then
    b = plan_doc(v, text)
  elseif v.type == "subagent" then
    b = subagent(v, text)
  else
    b = session_message(v, text)
  end
  return b.lines, b.hls
end

return M
