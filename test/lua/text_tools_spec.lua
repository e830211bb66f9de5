-- lua/acpchat/transcript/text.lua on hostile and long tool calls: every line a builder makes is one line
-- (Neovim refuses a line with a newline, and that error used to drop the rest of a render
-- batch), long output is folded, unfinished and failed calls say so. Plus the permission
-- question's text and choices (lua/acpchat/ask/permission.lua), drawn from the same one-line rule.
local text = require("acpchat.transcript.text")

local RLO = "\226\128\174" -- U+202E RIGHT-TO-LEFT OVERRIDE
local ZWSP = "\226\128\139" -- U+200B ZERO WIDTH SPACE
local NEL = "\194\133" -- U+0085 NEXT LINE (C1)
local LSEP = "\226\128\168" -- U+2028 LINE SEPARATOR

--- Every line of every builder output can be written to a buffer.
local function writable(lines)
  for _, l in ipairs(lines) do
    truthy(not l:find("\n", 1, true), "a line with a newline: " .. vim.inspect(l))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_delete(buf, { force = true })
end

describe("flat", function()
  it("escapes newlines, control characters and the escape key", function()
    eq("a\\nb\\r\\tc\\x1b[31m\\x00", text.flat("a\nb\r\tc\27[31m\0"))
  end)

  it("escapes bidi overrides, zero-width characters, C1 controls and line separators", function()
    eq(
      "x\\u{202e}y\\u{200b}z\\u{85}w\\u{2028}v",
      text.flat("x" .. RLO .. "y" .. ZWSP .. "z" .. NEL .. "w" .. LSEP .. "v")
    )
  end)

  it("keeps ordinary text, multibyte included, and caps the length in characters", function()
    eq("héllo · wörld", text.flat("héllo · wörld"))
    eq("ééé…", text.flat(string.rep("é", 10), 4))
    eq(300, vim.fn.strchars(text.flat(string.rep("x", 1000))))
  end)
end)

describe("tool call blocks", function()
  it("a multi-line title, kind, path, input, exit and plan entry each stay on one line", function()
    local lines = text.block({
      type = "tool",
      tool_call_id = "id\nx",
      title = "Read file\n\n1: Allow always\n2: Reject",
      kind = "read\nevil",
      status = "completed",
      locations = { { path = "a\nb.txt", line = 2 } },
      input = "$ rm -rf /\n# harmless",
      content = {
        { type = "diff", path = "d\n.txt", added = 1, removed = 0 },
        { type = "terminal", id = "t", tail = "out", exit = "exit\n1" },
      },
    })
    writable(lines)
    eq("● done · read\\nevil · Read file\\n\\n1: Allow always\\n2: Reject", lines[1])
    eq("  ↳ a\\nb.txt:2", lines[2])
    eq("  $ rm -rf / # harmless", lines[3])
    writable((text.block({ type = "plan", entries = { { content = "step\none", status = "pending" } } })))
    writable((text.block({ type = "mystery\ntype" })))
  end)

  it("a location's line shows when it is a line (1-based); 0 means the file", function()
    local lines = text.block({
      type = "tool",
      tool_call_id = "t",
      title = "Read",
      kind = "read",
      locations = { { path = "a.txt", line = 0 }, { path = "b.txt", line = 3 } },
    })
    eq("  ↳ a.txt", lines[2])
    eq("  ↳ b.txt:3", lines[3])
  end)

  it("a title that hides its text behind a right-to-left override shows the override", function()
    local lines = text.block({ type = "tool", tool_call_id = "t", title = "ls " .. RLO .. "txt.hs" })
    eq("○ pending · other · ls \\u{202e}txt.hs", lines[1])
  end)

  it("long output is folded to its first lines, with how many more; expanded shows all", function()
    local out = {}
    for i = 1, 12 do
      out[#out + 1] = "line " .. i
    end
    local v = {
      type = "tool",
      tool_call_id = "r",
      title = "Read f",
      kind = "read",
      status = "completed",
      content = { { type = "text", text = table.concat(out, "\n"), fold = 5 } },
    }
    local lines, hls = text.block(v)
    eq({
      "● done · read · Read f",
      "  line 1",
      "  line 2",
      "  line 3",
      "  line 4",
      "  line 5",
      "  … 7 more lines  (za: show all)",
    }, lines)
    eq({ 6, 0, -1, "AcpChatToolFolded" }, hls[#hls])
    text.toggle_expanded(v)
    lines = text.block(v)
    eq(13, #lines)
    eq("  line 12", lines[13])
    -- Short output (no fold) is shown whole.
    eq({ "○ pending · other · s", "  one", "  two" }, (text.block({
      type = "tool",
      tool_call_id = "s",
      title = "s",
      content = { { type = "text", text = "one\ntwo" } },
    })))
  end)

  it("a tool call the turn left unfinished says so, and never spins", function()
    local lines, hls =
      text.block({ type = "tool", tool_call_id = "u", title = "Long job", kind = "execute", status = "unfinished" })
    eq("◌ not finished · execute · Long job", lines[1])
    eq({ 0, 0, #"◌ not finished", "AcpChatToolCancelled" }, hls[2])
  end)

  it("a failed command's exit is marked failed", function()
    local lines, hls = text.block({
      type = "tool",
      tool_call_id = "f",
      title = "make",
      kind = "execute",
      status = "failed",
      content = { { type = "terminal", id = "t", tail = "boom", exit = "exit 2", failed = true } },
    })
    eq("  │ [exit 2]  (gt: full output)", lines[3])
    eq({ 2, #"  │ ", #"  │ [exit 2]", "AcpChatTerminalFailed" }, hls[#hls])
  end)
end)

describe("permission question", function()
  local permission = require("acpchat.ask.permission")
  local q = {
    title = "Edit\n1: Always allow",
    kind = "edit",
    tool_call_id = "p1",
    locations = { "/w/a\n.txt" },
    input = "file_path: /w/a.txt\n· content: x",
    diffs = { { path = "/w/a.txt", added = 1, removed = 2 } },
    options = {
      { id = "always", name = "Always Allow", kind = "allow_always" },
      { id = "allow", name = "Allow\n3: Reject", kind = "allow_once" },
      { id = "reject", name = "Reject", kind = "reject_once" },
    },
  }

  it("draws title, paths, input and diffs one line each", function()
    eq(
      { "Edit\\n1: Always allow [edit]", "  /w/a\\n.txt", "  file_path: /w/a.txt\\n· content: x", "  +1 -2 /w/a.txt" },
      vim.split(permission.prompt_text(q), "\n", { plain = true })
    )
  end)

  it("says a tool call's question as 'allow <title>', a v2 request's own title as it is", function()
    eq("allow Edit\\n1: Always allow", permission.label(q))
    eq(
      "Allow the change to notes.txt?",
      permission.label(vim.tbl_extend("force", q, { title = "Allow the change to notes.txt?", own_title = true }))
    )
  end)

  it("offers the once answers first, the always answers after, labels on one line", function()
    local labels = vim.tbl_map(function(i)
      return i.label
    end, permission.choices(q))
    eq({
      "Allow\\n3: Reject (this call)",
      "Reject (this call)",
      "Always Allow (this session; the agent may keep it too)",
      "Always allow in this project (the editor keeps it; the agent may keep it too)",
      "Show the diff first",
    }, labels)
  end)

  it("shows a remembered rule with what it approves", function()
    eq(
      "allow  run: npm test  (claude, this session)",
      permission.rule_text({ action = "allow", tool = "run: npm test", agent = "claude", scope = "session" })
    )
  end)

  it("takes keys typed ahead out of the typeahead", function()
    vim.api.nvim_feedkeys("12\r", "t", false)
    eq("12\r", permission.take_typeahead())
    eq("", permission.take_typeahead())
  end)
end)
