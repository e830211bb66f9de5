-- lua/acpchat/transcript/text.lua and status_text.lua: blocks to lines plus highlight segments, and the winbar text, without a
-- buffer or a window.
local text = require("acpchat.transcript.text")
local status_text = require("acpchat.transcript.status_text")

describe("text_lines", function()
  it("prefixes every line of a text kind", function()
    eq({ "> a", "> b" }, text.text_lines("user", "a\nb"))
    eq({ "  ┆ hm" }, text.text_lines("thought", "hm"))
    eq({ "plain", "" }, text.text_lines("agent", "plain\n"))
    eq({ "x" }, text.text_lines("unknown kind", "x"))
  end)
end)

describe("block", function()
  it("a turn header", function()
    local lines, hls = text.block({ type = "turn", turn = 3 })
    eq({ "## You · turn 3" }, lines)
    eq({ { 0, 0, -1, "AcpChatTurn" } }, hls)
  end)

  it("text kinds carry a line highlight instead of segments", function()
    local lines, hls, line_hl = text.block({ type = "user", text = "a\nb" })
    eq({ "> a", "> b" }, lines)
    eq({}, hls)
    eq("AcpChatUser", line_hl)
    local _, _, agent_hl = text.block({ type = "agent", text = "ok" })
    eq(nil, agent_hl)
  end)

  it("a tool call: header with its status, locations, input, text, diff and terminal", function()
    local lines, hls = text.block({
      type = "tool",
      tool_call_id = "x",
      title = "Edit f",
      kind = "edit",
      status = "failed",
      locations = { { path = "f.lua", line = 3 }, { path = "g.lua" } },
      input = '{"a":\n1}',
      content = {
        { type = "diff", path = "f.lua", added = 12, removed = 1, is_new = true },
        { type = "terminal", id = "t", tail = "one\ntwo", exit = "exit 0" },
        { type = "terminal", id = "u" },
        { type = "text", text = "note" },
      },
    })
    eq({
      "✗ failed · edit · Edit f",
      "  ↳ f.lua:3",
      "  ↳ g.lua",
      '  {"a": 1}',
      "  +12 -1 f.lua (new)",
      "  │ one",
      "  │ two",
      "  │ [exit 0]  (gt: full output)",
      "  │ [failed]  (gt: full output)",
      "  note",
    }, lines)
    eq({
      { 0, 0, -1, "AcpChatToolTitle" },
      { 0, 0, #"✗ failed", "AcpChatToolFailed" },
      { 1, 0, -1, "AcpChatLocation" },
      { 2, 0, -1, "AcpChatLocation" },
      { 3, 0, -1, "AcpChatToolInput" },
      { 4, 0, -1, "AcpChatDiffSummary" },
      { 4, 2, 5, "AcpChatDiffAdd" },
      { 4, 6, 8, "AcpChatDiffDelete" },
      { 5, 0, -1, "AcpChatTerminal" },
      { 6, 0, -1, "AcpChatTerminal" },
      { 7, 0, -1, "AcpChatTerminalStatus" },
      { 8, 0, -1, "AcpChatTerminalStatus" },
    }, hls)
  end)

  it("a tool call without a title shows its id; without a status it is pending", function()
    local lines, hls = text.block({ type = "tool", tool_call_id = "call_1", title = "" })
    eq({ "○ pending · other · call_1" }, lines)
    eq({ 0, 0, #"○ pending", "AcpChatToolPending" }, hls[2])
  end)

  it("every tool status has an icon, a word and a group", function()
    for status, s in pairs(text.status) do
      local lines = text.block({ type = "tool", tool_call_id = "i", title = "t", status = status })
      eq(s[1] .. " " .. s[2] .. " · other · t", lines[1], status)
      matches("^AcpChatTool", s[3])
    end
  end)

  it("a plan: a checklist with the done and active entries highlighted", function()
    local lines, hls = text.block({
      type = "plan",
      entries = {
        { content = "one", status = "completed" },
        { content = "two", status = "in_progress" },
        { content = "three", status = "pending" },
      },
    })
    eq({ "Plan", "  ✓ one", "  ◐ two", "  ○ three" }, lines)
    eq({ { 0, 0, -1, "AcpChatPlanTitle" }, { 1, 0, -1, "AcpChatPlanDone" }, { 2, 0, -1, "AcpChatPlanActive" } }, hls)
  end)

  it("a note: '! ' then indented lines, all in the level's group", function()
    local lines, hls = text.block({ type = "note", text = "careful\nreally", level = "warn" })
    eq({ "! careful", "  really" }, lines)
    eq({ { 0, 0, -1, "AcpChatWarn" }, { 1, 0, -1, "AcpChatWarn" } }, hls)
    local _, err_hls = text.block({ type = "note", text = "x", level = "error" })
    eq("AcpChatError", err_hls[1][4])
    local _, info_hls = text.block({ type = "note", text = "x" })
    eq("AcpChatNote", info_hls[1][4])
  end)

  it("an unknown block type still draws one line", function()
    eq({ "[mystery]" }, (text.block({ type = "mystery" })))
  end)
end)

describe("winbar", function()
  it("without a status", function()
    eq("acpchat", status_text.winbar(nil))
  end)

  it("agent first, the details after, usage with its cost, % escaped", function()
    local bar = status_text.winbar({
      agent = "claude",
      title = "Fix",
      mode = "Ask",
      model = "Opus",
      state = "ready",
      usage = { used = 1500, size = 200000, cost = { amount = 0.25, currency = "USD" } },
    })
    matches("^claude │ ", bar)
    for _, part in ipairs({ "Fix", "mode: Ask", "model: Opus" }) do
      truthy(bar:find(" │ " .. part, 1, true), part .. " in " .. bar)
    end
    truthy(vim.endswith(bar, "ctx 2k/200k (0%%) 0.25 USD"), "usage at the end: " .. bar)
  end)

  it("large context sizes read in millions", function()
    local bar = status_text.winbar({ agent = "a", state = "ready", usage = { used = 500000, size = 1000000 } })
    truthy(vim.endswith(bar, "ctx 500k/1.0M (50%%)"), bar)
  end)
end)
