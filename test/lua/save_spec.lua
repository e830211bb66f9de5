-- lua/acpchat/transcript/save.lua: the markdown :AcpChatSave writes (a header, then the
-- transcript with tool calls' bodies fenced) and when it refuses to write.
---@diagnostic disable: missing-fields, duplicate-set-field (specs build partial chats and redirect files)
local save = require("acpchat.transcript.save")
local blocks = require("acpchat.transcript.blocks")
local api = vim.api

--- A chat whose transcript buffer holds `lines`, with blocks { id, type, first row } in order.
local function chat_with(lines, marks)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local chat = { id = 1, agent = "fake", cwd = "/work/p", buf = buf }
  local rs = blocks.state(chat)
  for i, m in ipairs(marks) do
    rs.order[i] = m[1]
    rs.blocks[m[1]] =
      { mark = api.nvim_buf_set_extmark(buf, blocks.ns, m[3], 0, {}), type = m[2], index = i, sep = m[4] or 0 }
  end
  return chat
end

describe("header", function()
  it("the title, agent, session, folder and date", function()
    local h = save.header({
      agent = "claude",
      cwd = "/x",
      status = { title = "  Fix\nthe   bug ", session_id = "s1", cwd = "/work/p" },
    })
    eq({ "# Fix the bug", "", "- agent: claude", "- session: s1", "- folder: /work/p" }, vim.list_slice(h, 1, 5))
    matches("^%- saved: %d%d%d%d%-%d%d%-%d%d %d%d:%d%d$", h[6])
    eq("", h[7])
  end)
  it("without a status: a title from the agent, the chat's folder, no session", function()
    local h = save.header({ agent = "codex", cwd = "/work/q" })
    eq("# Chat with codex", h[1])
    eq("- folder: /work/q", h[4])
    truthy(not vim.iter(h):any(function(l)
      return l:find("session", 1, true) ~= nil
    end))
  end)
end)

describe("body", function()
  it("a tool call's lines under its header are fenced; text stays markdown", function()
    local chat = chat_with({ "## You · turn 1", "> hi", "✓ read a.lua", "  local x = 1", "  return x", "Done." }, {
      { "t", "turn", 0 },
      { "u", "user", 1 },
      { "tool", "tool", 2 },
      { "r", "agent", 5 },
    })
    eq(
      { "## You · turn 1", "> hi", "✓ read a.lua", "```text", "  local x = 1", "  return x", "```", "Done." },
      save.body(chat)
    )
  end)
  it("a tool call that is only its header gets no fence, also at the end", function()
    local chat = chat_with({ "> hi", "✓ ls" }, { { "u", "user", 0 }, { "tool", "tool", 1 } })
    eq({ "> hi", "✓ ls" }, save.body(chat))
  end)
  it("the last block's body runs to the end of the buffer", function()
    local chat = chat_with({ "◆ changes", "  a.lua +1 -0", "  b.lua +2 -1" }, { { "c", "changes", 0 } })
    eq({ "◆ changes", "```text", "  a.lua +1 -0", "  b.lua +2 -1", "```" }, save.body(chat))
  end)
end)

describe("refusal", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  it("a folder", function()
    matches("is a directory", save.refusal(dir, true))
  end)
  it("an existing file without !, and with ! it may be replaced", function()
    local f = dir .. "/t.md"
    vim.fn.writefile({ "old" }, f)
    matches("exists %(add ! to replace it%)", save.refusal(f, false))
    eq(nil, save.refusal(f, true))
  end)
  it("a dangling symbolic link counts as a file", function()
    local l = dir .. "/link.md"
    vim.uv.fs_symlink(dir .. "/nowhere", l)
    matches("exists", save.refusal(l, false))
  end)
  it("a file open with unsaved edits, even with !", function()
    local f = dir .. "/open.md"
    vim.fn.writefile({ "x" }, f)
    vim.cmd.edit(f)
    api.nvim_buf_set_lines(0, 0, -1, false, { "edited" })
    matches("unsaved changes", save.refusal(f, true))
    vim.cmd("bwipeout!")
  end)
  it("a new file may be written", function()
    eq(nil, save.refusal(dir .. "/new.md", false))
  end)
end)
