-- A transcript line longer than M.MAX bytes is held as several buffer lines. Appending to a
-- buffer line copies all of it, and a wrapped window measures all of it after each change: a
-- reply that is one line of 15 MB would cost its whole length in every batch. Each break is
-- marked (an extmark with a "↩" at the end of the line that goes on), and text() joins the
-- lines back byte for byte.
local M = {}

local api = vim.api

--- Keep in step with LINE_MAX_BYTES in src/view/text-slice.ts (Node paces batches by it).
M.MAX = 64 * 1024
M.ns = api.nvim_create_namespace("acpchat_continued")

--- Bytes in the buffer's last line, without reading it.
local function last_len(buf)
  local n = api.nvim_buf_line_count(buf)
  return api.nvim_buf_get_offset(buf, n) - api.nvim_buf_get_offset(buf, n - 1) - 1
end

--- The largest k <= want where `s` may be cut without splitting a UTF-8 sequence.
local function boundary(s, want)
  local k = want
  while k > 0 and k < #s do
    local b = s:byte(k + 1)
    if b < 0x80 or b >= 0xC0 then
      break
    end
    k = k - 1
  end
  return k
end

--- Append `parts` at the end of `buf` as nvim_buf_set_text would (parts[1] continues the last
--- line, each next one is a new line), breaking any line that would pass M.MAX bytes.
--- Returns how many lines were added.
function M.append(buf, parts)
  local out, cont = { "" }, {}
  local room = math.max(0, M.MAX - last_len(buf))
  for i, p in ipairs(parts) do
    if i > 1 then
      out[#out + 1] = ""
      room = M.MAX
    end
    while #p > room do
      local k = boundary(p, room)
      if k == 0 and room == M.MAX then
        k = room -- not UTF-8 at all: cut anyway
      end
      out[#out] = out[#out] .. p:sub(1, k)
      cont[#out] = true
      p = p:sub(k + 1)
      out[#out + 1] = ""
      room = M.MAX
    end
    out[#out] = out[#out] .. p
    room = room - #p
  end
  local last = api.nvim_buf_line_count(buf) - 1
  -- At the end of the last line (-1, -1) without reading it.
  api.nvim_buf_set_text(buf, -1, -1, -1, -1, out)
  for k in pairs(cont) do
    M.mark(buf, last + k - 1)
  end
  return #out - 1
end

--- Mark row `row` (0-based) as going on in the next line.
function M.mark(buf, row)
  api.nvim_buf_set_extmark(buf, M.ns, row, 0, { virt_text = { { "↩", "AcpChatNote" } }, virt_text_pos = "eol" })
end

--- The rows (0-based) that go on in the next line, in order.
---@return integer[]
function M.marked_rows(buf)
  local rows = {}
  for _, m in ipairs(api.nvim_buf_get_extmarks(buf, M.ns, 0, -1, {})) do
    rows[#rows + 1] = m[2]
  end
  return rows
end

--- Lines `first` to `last` (0-based, end exclusive; default: all) as one text, the lines a
--- long line was broken into joined back.
function M.text(buf, first, last)
  first = first or 0
  local lines = api.nvim_buf_get_lines(buf, first, last or -1, false)
  local cont = {}
  for _, m in ipairs(api.nvim_buf_get_extmarks(buf, M.ns, 0, -1, {})) do
    cont[m[2]] = true
  end
  local out = {}
  for i, l in ipairs(lines) do
    out[#out + 1] = l
    if i < #lines then
      out[#out + 1] = cont[first + i - 1] and "" or "\n"
    end
  end
  return table.concat(out)
end

--- Whether the buffer's last line goes on from the line before it (a long line broken).
function M.continued(buf)
  local n = api.nvim_buf_line_count(buf)
  return n > 1 and #api.nvim_buf_get_extmarks(buf, M.ns, { n - 2, 0 }, { n - 2, -1 }, { limit = 1 }) > 0
end

--- While a broken long line is the transcript's end, the windows that follow it show it without
--- 'wrap': placing the cursor below lines of a megabyte each makes a wrapping window measure
--- them (150 ms a batch at 1 MB a line); without 'wrap' a line is one row; 'wrap' comes back
--- with the next line.
function M.follow_view(chat, follow)
  local buf = chat.buf
  if M.continued(buf) then
    for _, win in ipairs(follow) do
      if api.nvim_win_is_valid(win) and vim.wo[win].wrap then
        vim.api.nvim_set_option_value("wrap", false, { scope = "local", win = win })
        chat.no_wrap = chat.no_wrap or {}
        chat.no_wrap[win] = true
      end
    end
  elseif chat.no_wrap then
    for win in pairs(chat.no_wrap) do
      if api.nvim_win_is_valid(win) and api.nvim_win_get_buf(win) == buf then
        vim.api.nvim_set_option_value("wrap", true, { scope = "local", win = win })
      end
    end
    chat.no_wrap = nil
  end
end

--- A window whose cursor is on a long wrapped line measures that line again after every change
--- above the cursor ('linebreak' and 'breakindent' make it dearer): twenty tool calls redrawn in
--- place above a 60 KB reply line took 25-30 ms. While a batch is drawn, such windows of `wins`
--- (those that follow the transcript's end, whose cursor the batch's end puts on the last line
--- anyway) have their cursor parked on the first line, and put back after (where extmarks say
--- its line and the top line went), with their view as it was: the line is measured once, at
--- the next redraw, not once per change. A window whose cursor is elsewhere is left alone: its
--- line may be one a batch replaces, and the cursor would lose its place.
local PARK_BYTES = 4096
local ns_park = api.nvim_create_namespace("acpchat_park")

---@param buf integer
---@param wins integer[]
---@return { win: integer, view: table, cursor: integer, top: integer }[]
function M.park(buf, wins)
  local parked = {}
  for _, win in ipairs(wins) do
    local row = api.nvim_win_get_cursor(win)[1]
    local len = api.nvim_buf_get_offset(buf, row) - api.nvim_buf_get_offset(buf, row - 1)
    if row > 1 and len > PARK_BYTES and vim.wo[win].wrap then
      api.nvim_win_call(win, function()
        local view = vim.fn.winsaveview()
        parked[#parked + 1] = {
          win = win,
          view = view,
          cursor = api.nvim_buf_set_extmark(buf, ns_park, row - 1, 0, {}),
          top = api.nvim_buf_set_extmark(buf, ns_park, view.topline - 1, 0, {}),
        }
        vim.fn.winrestview({ lnum = 1, col = 0, topline = view.topline })
      end)
    end
  end
  return parked
end

--- Put parked cursors back (the lines they were on, moved by the batch's changes).
function M.unpark(buf, parked)
  for _, p in ipairs(parked) do
    local cursor = api.nvim_buf_get_extmark_by_id(buf, ns_park, p.cursor, {})
    local top = api.nvim_buf_get_extmark_by_id(buf, ns_park, p.top, {})
    if api.nvim_win_is_valid(p.win) and api.nvim_win_get_buf(p.win) == buf and cursor[1] and top[1] then
      p.view.lnum, p.view.topline = cursor[1] + 1, top[1] + 1
      api.nvim_win_call(p.win, function()
        vim.fn.winrestview(p.view)
      end)
    end
  end
  if #parked > 0 then
    api.nvim_buf_clear_namespace(buf, ns_park, 0, -1)
  end
end

return M
