-- lua/acpchat/transcript/long_line.lua's park/unpark: while a batch changes lines above a window
-- whose cursor is on a long wrapped line, the cursor waits on the first line; afterwards it is
-- back on its own line (moved with the changes above it), with the view it had.
local long_line = require("acpchat.transcript.long_line")
local api = vim.api

--- A buffer of `short` short lines then one long line, shown in the current window with the
--- cursor on the long line.
local function setup(short, long_bytes)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_win_set_buf(0, buf)
  vim.wo.wrap = true
  vim.wo.linebreak = true
  local lines = {}
  for i = 1, short do
    lines[i] = "line " .. i
  end
  lines[short + 1] = string.rep("abc ", long_bytes / 4)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_win_set_cursor(0, { short + 1, 0 })
  vim.cmd("redraw")
  return buf
end

describe("park and unpark", function()
  it("a cursor on a long line: parked on line 1, back on its line after lines are added above", function()
    local buf = setup(40, 60000)
    local before = vim.fn.winsaveview()
    local parked = long_line.park(buf, vim.fn.win_findbuf(buf))
    eq(1, #parked)
    eq(1, api.nvim_win_get_cursor(0)[1])
    api.nvim_buf_set_lines(buf, 5, 6, false, { "a", "b", "c" })
    api.nvim_buf_set_lines(buf, 20, 21, false, { "x" })
    long_line.unpark(buf, parked)
    eq({ 43, 0 }, api.nvim_win_get_cursor(0))
    eq(before.topline + (before.topline > 6 and 2 or 0), vim.fn.winsaveview().topline)
    eq({}, api.nvim_buf_get_extmarks(buf, api.nvim_get_namespaces().acpchat_park, 0, -1, {}))
  end)

  it("a cursor on a short line, or a window without 'wrap', is left where it is", function()
    local buf = setup(40, 100)
    eq(0, #long_line.park(buf, vim.fn.win_findbuf(buf)))
    buf = setup(40, 60000)
    vim.wo.wrap = false
    eq(0, #long_line.park(buf, vim.fn.win_findbuf(buf)))
    eq(41, api.nvim_win_get_cursor(0)[1])
  end)

  it("two windows on the buffer: each put back on its own line", function()
    local buf = setup(40, 60000)
    vim.cmd("split")
    api.nvim_win_set_cursor(0, { 41, 0 })
    local other = vim.fn.win_getid(vim.fn.winnr("j"))
    api.nvim_win_set_cursor(other, { 41, 0 })
    local parked = long_line.park(buf, vim.fn.win_findbuf(buf))
    eq(2, #parked)
    api.nvim_buf_set_lines(buf, 0, 0, false, { "new" })
    long_line.unpark(buf, parked)
    eq(42, api.nvim_win_get_cursor(0)[1])
    eq(42, api.nvim_win_get_cursor(other)[1])
    vim.cmd("only")
  end)

  it("only the windows given (those following the end) are parked", function()
    local buf = setup(40, 60000)
    vim.cmd("split")
    local other = vim.fn.win_getid(vim.fn.winnr("j"))
    api.nvim_win_set_cursor(other, { 41, 0 })
    local parked = long_line.park(buf, { api.nvim_get_current_win() })
    eq(1, #parked)
    eq(41, api.nvim_win_get_cursor(other)[1])
    long_line.unpark(buf, parked)
    vim.cmd("only")
  end)

  it("a window closed while parked is skipped", function()
    local buf = setup(40, 60000)
    vim.cmd("split")
    local parked = long_line.park(buf, vim.fn.win_findbuf(buf))
    vim.cmd("close")
    long_line.unpark(buf, parked)
    eq(41, api.nvim_win_get_cursor(0)[1])
  end)
end)
