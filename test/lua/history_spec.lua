-- lua/acpchat/transcript/history.lua: a transcript kept as local history and shown again keeps a
-- long line (broken into several buffer lines by long_line.lua) as the one line it was.
local history = require("acpchat.transcript.history")
local long_line = require("acpchat.transcript.long_line")
local api = vim.api

local function chat_with_buf(sid)
  local buf = api.nvim_create_buf(false, true)
  return { id = 1, buf = buf, status = { session_id = sid } }
end

describe("local history", function()
  it("a long line broken for the buffer is marked again when the history is shown", function()
    local sid = "hist-" .. tostring(vim.uv.hrtime())
    local c = chat_with_buf(sid)
    api.nvim_buf_set_lines(c.buf, 0, -1, false, { "## agent", "" })
    local long = string.rep("abcdefgh", 20000) -- 160,000 bytes: broken twice
    long_line.append(c.buf, { long, "after" })
    eq(2, #long_line.marked_rows(c.buf))
    local before = long_line.text(c.buf)
    history.save(c)
    local md = history.dir() .. "/" .. sid .. ".md"
    local breaks = history.dir() .. "/" .. sid .. ".breaks"
    truthy(vim.wait(2000, function()
      return vim.fn.getfsize(md) > 160000 and vim.fn.getfsize(breaks) > 0
    end))
    local shown = chat_with_buf(sid)
    truthy(history.show(shown))
    local n = api.nvim_buf_line_count(shown.buf)
    -- Between the header and the footer: the transcript, its long line whole again.
    eq(before, long_line.text(shown.buf, 1, n - 1))
    eq(2, #long_line.marked_rows(shown.buf))
  end)

  it("without breaks no file of them is written, and lines stay as they are", function()
    local sid = "plain-" .. tostring(vim.uv.hrtime())
    local c = chat_with_buf(sid)
    api.nvim_buf_set_lines(c.buf, 0, -1, false, { "one", "two" })
    history.save(c)
    local md = history.dir() .. "/" .. sid .. ".md"
    truthy(vim.wait(2000, function()
      return vim.fn.getfsize(md) > 0
    end))
    eq(0, vim.fn.filereadable(history.dir() .. "/" .. sid .. ".breaks"))
    local shown = chat_with_buf(sid)
    truthy(history.show(shown))
    eq({ "one", "two" }, api.nvim_buf_get_lines(shown.buf, 1, 3, false))
    eq(0, #long_line.marked_rows(shown.buf))
  end)
end)
