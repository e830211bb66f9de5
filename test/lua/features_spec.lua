-- lua/acpchat/transcript/features/: the blocks of the feature modules (a plan by id, a
-- subagent with its nested transcript, a message between sessions) as lines and highlights.
local features = require("acpchat.transcript.features")
local subagents = require("acpchat.transcript.features.subagents")
local text = require("acpchat.transcript.text")
local config = require("acpchat.config")

before_each(function()
  config.set({})
end)

describe("plan by id", function()
  it("markdown under its title, and how much more there is", function()
    local lines, hls = features.block(
      { type = "plan_doc", plan_id = "p1", kind = "markdown", markdown = "# Steps\n1. read", more = 2 },
      text
    )
    eq({ "Plan · p1", "  # Steps", "  1. read", "  … 2 more lines not shown" }, lines)
    eq({ 0, 0, -1, "AcpChatPlanTitle" }, hls[1])
    eq({ 3, 0, -1, "AcpChatNote" }, hls[#hls])
  end)
  it("a file plan is its location; a removed one says so", function()
    eq(
      { "Plan · p2", "  ↳ docs/plan.md" },
      (features.block({ type = "plan_doc", plan_id = "p2", kind = "file", location = "docs/plan.md" }, text))
    )
    eq(
      { "Plan · p3 (removed by the agent)" },
      (features.block({ type = "plan_doc", plan_id = "p3", removed = true }, text))
    )
  end)
end)

describe("subagent", function()
  it("its header with state and the key that opens it, its blocks under the gutter", function()
    local lines, hls = features.block({
      type = "subagent",
      session_id = "child",
      title = "Explore",
      state = "running",
      blocks = { { type = "agent", text = "looking" }, { type = "agent", text = "found it" } },
    }, text)
    eq("⑂ subagent · Explore · running…  (gs: open)", lines[1])
    eq({ "  │ looking", "  │", "  │ found it" }, vim.list_slice(lines, 2))
    local head = "⑂ subagent · Explore"
    eq({ 0, #head + #" · ", #head + #" · " + #"running…", "AcpChatToolRunning" }, hls[2])
  end)
  it("idle with a stop reason other than end_turn says it; nothing yet says so", function()
    local lines =
      features.block({ type = "subagent", session_id = "s9", state = "idle", stop_reason = "max_tokens" }, text)
    eq({ "⑂ subagent · s9 · idle · max_tokens  (gs: open)", "  │ (nothing yet)" }, lines)
  end)
  it("nested too deep: only how many blocks there are", function()
    local lines = features.block({ type = "subagent", session_id = "s", nested = true, hidden = 1 }, text)
    eq({ "⑂ subagent · s", "  │ … 1 block, nested too deep to show here" }, lines)
  end)
  it("its own view has no open hint but offers to stop it", function()
    local b = subagents.subagent_head({ session_id = "s", state = "running", can_cancel = true }, text, true)
    eq({ "⑂ subagent · s · running…  (<C-c>: stop it)" }, b.lines)
  end)
end)

describe("message between sessions", function()
  it("the direction, the peer, the text and what was not kept", function()
    eq(
      { "→ message to lead", "  hi", "  … 5 more characters not kept" },
      (features.block({ type = "session_message", direction = "to", peer = "lead", text = "hi", omitted = 5 }, text))
    )
    eq(
      "← message from another session",
      (features.block({ type = "session_message", direction = "from", text = "" }, text))[1]
    )
  end)
end)
