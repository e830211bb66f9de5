-- The text builder: turns a block (as Node describes it) into lines plus highlight segments.
-- Pure: no buffer, no window, so formatting is testable on its own. Rendering applies the result.
local M = {}

-- Each text kind's line prefix: appends to a block continue its prefix on every new line.
M.prefix = { user = "> ", thought = "  ┆ ", agent = "" }
M.line_hl = { user = "AcpChatUser", thought = "AcpChatThought" }

--- How a tool call's status reads: icon, word, highlight group.
M.status = {
  pending = { "○", "pending", "AcpChatToolPending" },
  in_progress = { "◐", "running", "AcpChatToolRunning" },
  completed = { "●", "done", "AcpChatToolDone" },
  failed = { "✗", "failed", "AcpChatToolFailed" },
  cancelled = { "⊘", "cancelled", "AcpChatToolCancelled" },
  -- ACP v2: the agent paused it; it may resume.
  paused = { "‖", "paused", "AcpChatToolPending" },
  -- The user asked to cancel it (ACP v2); the agent has not confirmed yet.
  cancelling = { "◐", "cancelling…", "AcpChatToolRunning" },
  rejected = { "⊘", "rejected", "AcpChatToolCancelled" },
  -- The turn ended and the agent never said how the tool call ended.
  unfinished = { "◌", "not finished", "AcpChatToolCancelled" },
}
local plan_icon = { pending = "○", in_progress = "◐", completed = "✓", cancelled = "⊘" }

local tb = require("acpchat.transcript.text_builder")
local features = require("acpchat.transcript.features")
local split = tb.split

local ctrl = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function esc2(c)
  local b1, b2 = c:byte(1, 2)
  return string.format("\\u{%x}", (b1 % 32) * 64 + (b2 % 64))
end

local function esc3(c)
  local b1, b2, b3 = c:byte(1, 3)
  return string.format("\\u{%x}", (b1 % 16) * 4096 + (b2 % 64) * 64 + (b3 % 64))
end

--- One line, safe to draw: newlines, control characters (C0, DEL, C1), bidi controls,
--- zero-width characters and line separators escaped (`\n`, `\x1b`, `\u{202e}`), at most `max`
--- characters (with "…"). A builder never produces a line with a newline in it.
function M.flat(s, max)
  s = tostring(s == nil and "" or s)
  s = s:gsub("[%z\1-\31\127]", function(c)
    return ctrl[c] or string.format("\\x%02x", c:byte())
  end)
  s = s:gsub("\194[\128-\159]", esc2)
  s = s:gsub("\216\156", esc2)
  s = s:gsub("\226\128[\139-\143\168-\174]", esc3)
  s = s:gsub("\226\129[\160-\169]", esc3)
  s = s:gsub("\239\187\191", esc3)
  max = max or 300
  if #s > max and vim.fn.strchars(s) > max then
    s = vim.fn.strcharpart(s, 0, max - 1) .. "…"
  end
  return s
end

--- The key that expands a folded tool output, when one is mapped (for the hint).
local function expand_key()
  return tb.key("expand_output")
end

--- A size for people: 512 B, 12.3 KB, 4.0 MB (as Node's humanSize).
function M.human_size(n)
  n = tonumber(n) or 0
  if n < 1024 then
    return string.format("%d B", n)
  elseif n < 1024 * 1024 then
    return string.format("%.1f KB", n / 1024)
  end
  return string.format("%.1f MB", n / (1024 * 1024))
end

--- The keys that open and save an image or audio clip, for the hint on its line.
local function media_hint()
  local parts = {}
  local open, save = tb.key("open_media"), tb.key("save_media")
  if open then
    parts[#parts + 1] = open .. ": open"
  end
  if save then
    parts[#parts + 1] = save .. ": save"
  end
  return #parts > 0 and ("  (" .. table.concat(parts, " · ") .. ")") or ""
end

--- An image or audio clip as one line: "[image] cat.png · image/png · 12.3 KB  (gx: open · gs: save)".
--- Returns the line and its highlights (relative to column 0 of the line, after `lead`).
function M.media_line(lead, v)
  local tag = "[" .. (v.kind == "audio" and "audio" or "image") .. "]"
  local parts = {}
  if v.name and v.name ~= "" then
    parts[#parts + 1] = M.flat(v.name, 120)
  end
  parts[#parts + 1] = M.flat(v.mime or "?", 80)
  parts[#parts + 1] = M.human_size(v.size)
  local body = table.concat(parts, " · ")
  local hint = media_hint()
  local line = lead .. tag .. " " .. body .. hint
  local hls = { { #lead, #lead + #tag, "AcpChatToolTitle" } }
  if hint ~= "" then
    hls[#hls + 1] = { #line - #hint, #line, "AcpChatToolFolded" }
  end
  return line, hls
end

--- Flip a tool call view between folded and expanded output (the caller redraws it).
function M.toggle_expanded(v)
  v.expanded = not v.expanded
  return v.expanded
end

--- Lines of a text kind (user, agent, thought) with its prefix on each line.
function M.text_lines(kind, text)
  local p = M.prefix[kind] or ""
  local out = {}
  for _, l in ipairs(split(text)) do
    out[#out + 1] = p .. l
  end
  return out
end

--- A builder (text_builder.lua) whose `media` maps a row to the index, in the tool call's
--- content, of the image or audio clip drawn there.
local function builder()
  return tb.builder({ media = {} })
end

--- Output text: folded to its first `c.fold` lines unless the view is expanded.
local function output_lines(b, c, expanded)
  local lines = split(c.text)
  if #lines == 1 and lines[1] == "" then
    return
  end
  local show = #lines
  if type(c.fold) == "number" and not expanded and #lines > c.fold then
    show = c.fold
  end
  for i = 1, show do
    b.add("  " .. lines[i])
  end
  if show < #lines then
    local more = #lines - show
    local key = expand_key()
    b.add(
      string.format(
        "  … %d more line%s%s",
        more,
        more == 1 and "" or "s",
        key and ("  (" .. key .. ": show all)") or ""
      ),
      "AcpChatToolFolded"
    )
  end
end

--- A Task's subagent tool calls shown while folded (za shows them all).
local SUBAGENT_CALLS = 3

local function tool_lines(v)
  local b = builder()
  local status = v.status or "pending"
  local icon, word, group = unpack(M.status[status] or { "?", M.flat(status, 40), "AcpChatToolPending" })
  local title = (v.title and v.title ~= "") and v.title or v.tool_call_id
  local head = string.format("%s %s · %s · %s", icon, word, M.flat(v.kind or "other", 40), M.flat(title, 300))
  if v.background then
    head = head .. " · in the background"
  end
  local cancel_key = v.cancel and tb.key("cancel_tool")
  if cancel_key then
    head = head .. "  (" .. cancel_key .. (v.cancel == "terminal" and ": stop its command)" or ": cancel it)")
  end
  local row = b.add(head, "AcpChatToolTitle")
  b.hl(row, 0, #icon + 1 + #word, group)
  for _, loc in ipairs(v.locations or {}) do
    local where = M.flat(loc.path, 300)
    -- Lines are 1-based; some agents send 0 for "the whole file".
    if type(loc.line) == "number" and loc.line > 0 then
      where = where .. ":" .. loc.line
    end
    b.add("  ↳ " .. where, "AcpChatLocation")
  end
  if v.input and v.input ~= "" then
    b.add("  " .. M.flat((v.input:gsub("\n", " ")), 300), "AcpChatToolInput")
  end
  -- A Task's subagent tool calls (claude-agent-acp): folded to the last few unless expanded.
  local kids = v.children or {}
  if #kids > 0 then
    local first = 1
    if not v.expanded and #kids > SUBAGENT_CALLS then
      first = #kids - SUBAGENT_CALLS + 1
    end
    local hidden = (first - 1) + (tonumber(v.more_children) or 0)
    if hidden > 0 then
      local key = expand_key()
      b.add(
        string.format(
          "  ┆ … %d earlier tool call%s of the subagent%s",
          hidden,
          hidden == 1 and "" or "s",
          key and ("  (" .. key .. ": show all)") or ""
        ),
        "AcpChatToolFolded"
      )
    end
    for i = first, #kids do
      local k = kids[i]
      local ki, kw, kg = unpack(M.status[k.status] or { "?", M.flat(k.status or "?", 40), "AcpChatToolPending" })
      local r = b.add(
        string.format("  ┆ %s %s · %s · %s", ki, kw, M.flat(k.kind or "other", 40), M.flat(k.title or "", 300)),
        "AcpChatToolInput"
      )
      b.hl(r, #"  ┆ ", #"  ┆ " + #ki + 1 + #kw, kg)
    end
  end
  for _, c in ipairs(v.content or {}) do
    if c.type == "text" then
      output_lines(b, c, v.expanded)
    elseif c.type == "diff" then
      local r = b.add(
        string.format("  +%d -%d %s%s", c.added, c.removed, M.flat(c.path, 300), c.is_new and " (new)" or ""),
        "AcpChatDiffSummary"
      )
      local plus = string.format("+%d", c.added)
      b.hl(r, 2, 2 + #plus, "AcpChatDiffAdd")
      b.hl(r, 3 + #plus, 3 + #plus + #string.format("-%d", c.removed), "AcpChatDiffDelete")
    elseif c.type == "media" then
      local line, hls = M.media_line("  ", c)
      local r = b.add(line)
      for _, h in ipairs(hls) do
        b.hl(r, h[1], h[2], h[3])
      end
      b.media[r] = c.index
    elseif c.type == "terminal" then
      if c.tail and c.tail ~= "" then
        for _, l in ipairs(split(c.tail)) do
          b.add("  │ " .. l, "AcpChatTerminal")
        end
      end
      -- No exit status: running only while the call is (or while it runs in the background, a
      -- command left running after its call returned); a rejected or cancelled call's says so.
      local open = v.status == "pending" or v.status == "in_progress" or v.background or v.cancel == "terminal"
      local said = c.exit or (open and "running") or (M.status[v.status] or {})[2] or "ended"
      local exit = "[" .. M.flat(said, 60) .. "]"
      local r = b.add("  │ " .. exit .. "  (gt: full output)", "AcpChatTerminalStatus")
      if c.failed then
        -- A non-zero exit or a signal: the command failed.
        b.hl(r, #"  │ ", #"  │ " + #exit, "AcpChatTerminalFailed")
      end
    end
  end
  return b
end

--- A plan's entries, one line each with its status (the stable plan and the plans by id).
function M.plan_entries(b, entries)
  for _, e in ipairs(entries or {}) do
    local row = b.add(string.format("  %s %s", plan_icon[e.status] or "○", M.flat(e.content, 500)))
    if e.status == "completed" or e.status == "cancelled" then
      b.hl(row, 0, -1, "AcpChatPlanDone")
    elseif e.status == "in_progress" then
      b.hl(row, 0, -1, "AcpChatPlanActive")
    end
  end
end

local function plan_lines(v)
  local b = builder()
  b.add("Plan", "AcpChatPlanTitle")
  M.plan_entries(b, v.entries)
  return b
end

--- How a context compaction's status reads: word, highlight group.
M.compaction_status = {
  in_progress = { "compacting the context…", "AcpChatToolRunning" },
  completed = { "context compacted", "AcpChatToolDone" },
  failed = { "context compaction failed", "AcpChatToolFailed" },
  cancelled = { "context compaction cancelled", "AcpChatToolCancelled" },
}

-- A compaction's summary shows this many lines until expanded (za): the last ones while it
-- streams, the first ones once it is done.
local SUMMARY_LINES = 3

--- A context compaction: a header with its status, the error, and the summary under a gutter
--- (dimmed, like a thought), redrawn in place as it streams; folded to a few lines (za shows all).
local function compaction_lines(v)
  local b = builder()
  local word, group = unpack(
    M.compaction_status[v.status] or { "context compaction: " .. M.flat(v.status or "?", 40), "AcpChatToolPending" }
  )
  local row = b.add("⟲ " .. word, "AcpChatToolTitle")
  b.hl(row, 0, -1, group)
  if v.error and v.error ~= "" then
    b.add("  " .. M.flat(v.error, 300), "AcpChatError")
  end
  if v.summary and v.summary ~= "" then
    local lines = split(v.summary)
    local first, last = 1, #lines
    if not v.expanded and #lines > SUMMARY_LINES then
      if v.status == "in_progress" then
        first = #lines - SUMMARY_LINES + 1
      else
        last = SUMMARY_LINES
      end
    end
    local hidden = #lines - (last - first + 1)
    local key = expand_key()
    local note = hidden > 0
      and string.format(
        "  ┆ … %d more line%s%s",
        hidden,
        hidden == 1 and "" or "s",
        key and ("  (" .. key .. ": show all)") or ""
      )
    if note and first > 1 then
      b.add(note, "AcpChatToolFolded")
    end
    for i = first, last do
      b.add("  ┆ " .. lines[i], "AcpChatThought")
    end
    if note and first == 1 then
      b.add(note, "AcpChatToolFolded")
    end
  end
  return b
end

--- What a turn (or a take-back, or a rewind) changed: a header with the totals and the keys,
--- then one line per file (the keys find the file by its row: changes.lua).
M.change_letter = { added = "A", deleted = "D", modified = "M", renamed = "R", type = "T" }

local function changes_lines(v)
  local b = builder()
  local added, removed = 0, 0
  for _, f in ipairs(v.files or {}) do
    added, removed = added + (tonumber(f.added) or 0), removed + (tonumber(f.removed) or 0)
  end
  local n = #(v.files or {}) + (tonumber(v.more) or 0)
  local head = string.format(
    "◆ %s changed %d file%s (+%d -%d)",
    M.flat(v.title or "This step", 200),
    n,
    n == 1 and "" or "s",
    added,
    removed
  )
  local keys = " · gd review"
  if v.rewind_turn then
    keys = keys .. " · :AcpChatRewind " .. v.rewind_turn
  end
  local row = b.add(head .. keys, "AcpChatChanges")
  b.hl(row, #head, -1, "AcpChatNote")
  for _, f in ipairs(v.files or {}) do
    local letter = M.change_letter[f.status] or "?"
    local name = M.flat(f.path, 300)
    if f.from then
      name = name .. " ← " .. M.flat(f.from, 300)
    end
    local stat
    if f.large then
      stat = "(over the size limit: listed, not kept)"
    elseif f.binary then
      stat = "(binary)"
    elseif f.link then
      stat = "(link)"
    else
      stat = string.format("+%d -%d", tonumber(f.added) or 0, tonumber(f.removed) or 0)
    end
    if f.mode_change then
      stat = stat .. " (mode " .. M.flat(f.mode_change, 20) .. ")"
    end
    local line = string.format("  %s %s  %s", letter, name, stat)
    local r = b.add(line)
    local group = f.status == "added" and "AcpChatDiffAdd"
      or f.status == "deleted" and "AcpChatDiffDelete"
      or "AcpChatDiffSummary"
    b.hl(r, 2, 3, group)
    local s = #line - #stat
    if not f.large and not f.binary then
      local plus = string.format("+%d", tonumber(f.added) or 0)
      b.hl(r, s, s + #plus, "AcpChatDiffAdd")
      b.hl(r, s + #plus + 1, s + #plus + 1 + #string.format("-%d", tonumber(f.removed) or 0), "AcpChatDiffDelete")
    end
  end
  if v.more then
    b.add(
      string.format("  … %d more file%s (:AcpChatChanges lists them all)", v.more, v.more == 1 and "" or "s"),
      "AcpChatToolFolded"
    )
  end
  return b
end

--- How a turn that did not simply end is marked.
M.end_words = {
  cancelled = "turn cancelled",
  max_tokens = "stopped: the reply reached the token limit",
  max_turn_requests = "stopped: the turn reached its limit of model requests",
  refusal = "the agent refused",
  error = "the turn failed (the note above says why)",
}

--- Which image or audio clip of a tool call view is drawn on row `offset` (0-based, from the
--- block's first row): its index in the call's content, or nil.
function M.media_at(v, offset)
  if not v or v.type ~= "tool" then
    return nil
  end
  return tool_lines(v).media[offset]
end

--- Lines and highlights of a block view.
---@return string[] lines, table[] hls, string|nil line_hl (a group for every line)
function M.block(v)
  local t = v.type
  if t == "turn" then
    return { "## You · turn " .. v.turn }, { { 0, 0, -1, "AcpChatTurn" } }
  elseif t == "reply" then
    return { "## " .. M.flat(v.agent or "agent", 80) }, { { 0, 0, -1, "AcpChatReply" } }
  elseif t == "end" then
    return { "── " .. (M.end_words[v.reason] or ("stopped: " .. M.flat(v.reason or "?", 60))) .. " ──" }, {
      { 0, 0, -1, "AcpChatWarn" },
    }
  elseif t == "user" or t == "agent" or t == "thought" then
    return M.text_lines(t, v.text), {}, M.line_hl[t]
  elseif t == "tool" then
    local b = tool_lines(v)
    return b.lines, b.hls
  elseif t == "plan" then
    local b = plan_lines(v)
    return b.lines, b.hls
  elseif t == "compaction" then
    local b = compaction_lines(v)
    return b.lines, b.hls
  elseif t == "changes" then
    local b = changes_lines(v)
    return b.lines, b.hls
  elseif features.owns(t) then
    -- A feature module's block (plans by id, subagents, session messages); the builder gets
    -- this module (no require back).
    return features.block(v, M)
  elseif t == "media" then
    local line, hls = M.media_line(M.prefix[v.role] or "", v)
    local out = {}
    for _, h in ipairs(hls) do
      out[#out + 1] = { 0, h[1], h[2], h[3] }
    end
    return { line }, out, M.line_hl[v.role]
  elseif t == "note" then
    local group = v.level == "error" and "AcpChatError" or v.level == "warn" and "AcpChatWarn" or "AcpChatNote"
    local lines = {}
    for i, l in ipairs(split(v.text)) do
      lines[#lines + 1] = (i == 1 and "! " or "  ") .. l
    end
    local hls = {}
    for i = 1, #lines do
      hls[#hls + 1] = { i - 1, 0, -1, group }
    end
    return lines, hls
  end
  return { "[" .. M.flat(t, 60) .. "]" }, {}
end

return M
