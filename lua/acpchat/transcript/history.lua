-- Local history: the transcript as this plugin drew it, kept per session (after each turn), and
-- shown when a session is resumed by an agent that does not replay it (session/resume).
-- Transcripts are redacted in Node before they are drawn, so no secret is written here.
local api = vim.api
local long_line = require("acpchat.transcript.long_line")

local M = {}

function M.dir()
  return vim.fn.stdpath("state") .. "/acpchat/history"
end

local function file(session_id)
  return M.dir() .. "/" .. session_id:gsub("[^%w%-_.]", "_") .. ".md"
end

--- Beside the history: the rows of a long line broken for the buffer (long_line.lua), so that
--- shown again the line reads, copies and saves as the one line it was.
local function breaks_file(path)
  return (path:gsub("%.md$", ".breaks"))
end

-- Each transcript buffer's save state: `saved`, the lines the file holds; `dirty`, the first
-- line changed since (on_lines). A turn's end writes only from the first changed line on: the
-- earlier turns are on disk already. Writing the whole transcript at every turn cost time and
-- memory in proportion to the session (3 MB read into Lua, 14-19 ms, at every turn's end).
local track = {}

local function watch(buf)
  local t = track[buf]
  if t then
    return t
  end
  t = { saved = 0, dirty = 0 }
  track[buf] = t
  api.nvim_buf_attach(buf, false, {
    on_lines = function(_, _, _, first)
      if first < t.dirty then
        t.dirty = first
      end
    end,
    on_reload = function()
      t.dirty = 0
    end,
    on_detach = function()
      track[buf] = nil
    end,
  })
  return t
end

local O = vim.uv.constants

--- Write `text` at byte `offset` of `path`, cutting the file there first; off the editor's
--- thread (libuv's pool). `done()` runs when it is over.
local function write_at(path, offset, text, done)
  vim.uv.fs_open(path, O.O_RDWR + O.O_CREAT, 420, function(err, fd)
    if err or not fd then
      done(false)
      return
    end
    vim.uv.fs_ftruncate(fd, offset, function(terr)
      if terr then
        vim.uv.fs_close(fd, function()
          done(false)
        end)
        return
      end
      vim.uv.fs_write(fd, text, offset, function(werr)
        vim.uv.fs_close(fd, function()
          done(not werr)
        end)
      end)
    end)
  end)
end

-- Saves in flight, by buffer: a save asked for meanwhile runs once that one is done.
local writing = {}

--- Bytes of transcript read into one save: a turn that drew megabytes is saved in parts, one
--- per turn of the editor's loop (reading 15 MB of lines at once held it for 100 ms; 1 MiB of
--- short lines, 20-80 ms on a busy machine).
local SAVE_BYTES = 256 * 1024

--- Keep the chat's transcript for its session (a turn ended): what changed since the last
--- save is written, in the background.
---@param chat acpchat.Chat
function M.save(chat)
  local sid = chat.status and chat.status.session_id
  local buf = chat.buf
  if not sid or not api.nvim_buf_is_valid(buf) or not api.nvim_buf_is_loaded(buf) then
    return
  end
  if writing[buf] then
    writing[buf] = chat -- again once the one in flight is done
    return
  end
  local t = watch(buf)
  local path = file(sid)
  local from = t.path == path and math.min(t.dirty, t.saved) or 0
  local count = api.nvim_buf_line_count(buf)
  local offset = api.nvim_buf_get_offset(buf, from)
  -- At most SAVE_BYTES read per turn of the editor's loop; the rest is saved next.
  local upto = count
  if api.nvim_buf_get_offset(buf, count) - offset > SAVE_BYTES then
    local lo, hi = from + 1, count
    while lo < hi do
      local mid = math.floor((lo + hi + 1) / 2)
      if api.nvim_buf_get_offset(buf, mid) - offset <= SAVE_BYTES then
        lo = mid
      else
        hi = mid - 1
      end
    end
    upto = lo
  end
  local text = table.concat(api.nvim_buf_get_lines(buf, from, upto, false), "\n") .. "\n"
  t.path, t.saved, t.dirty = path, upto, upto
  if upto < count and writing[buf] == nil then
    writing[buf] = chat -- the rest once this part is written
  end
  writing[buf] = writing[buf] or true
  vim.fn.mkdir(M.dir(), "p")
  -- The breaks, whole (a few numbers): each save replaces them; none, no file.
  local rows = long_line.marked_rows(buf)
  if #rows > 0 or t.breaks then
    t.breaks = #rows > 0
    write_at(breaks_file(path), 0, #rows > 0 and table.concat(rows, "\n") .. "\n" or "", function() end)
  end
  write_at(path, offset, text, function(ok)
    local again = writing[buf]
    writing[buf] = nil
    if not ok then
      t.path = nil -- written whole next time
    end
    if type(again) == "table" then
      vim.schedule(function()
        M.save(again)
      end)
    end
  end)
end

--- The last turn number in a session's local history (0: none), so that a resume with nothing
--- replayed numbers its turns after the ones shown above it.
---@param session_id string
---@return integer
function M.turns(session_id)
  local f = file(session_id)
  if vim.fn.filereadable(f) == 0 then
    return 0
  end
  local last = 0
  for _, l in ipairs(vim.fn.readfile(f)) do
    local n = l:match("^## You · turn (%d+)$")
    if n then
      last = math.max(last, tonumber(n))
    end
  end
  return last
end

--- The row (0-based) of the local history's last line in the chat's transcript, or nil.
---@param chat acpchat.Chat
---@return integer|nil
function M.end_row(chat)
  local ns = api.nvim_create_namespace("acpchat_history")
  local marks = api.nvim_buf_get_extmarks(chat.buf, ns, -1, 0, { limit = 1 })
  return marks[1] and marks[1][2] or nil
end

M.header =
  "── local history: what this chat showed before; the agent resumed the session without replaying it ──"
M.footer = "── end of local history ──"

--- A resumed session with nothing replayed: show what was recorded for it, marked as such.
---@param chat acpchat.Chat
function M.show(chat)
  local sid = chat.status and chat.status.session_id
  local f = sid and file(sid)
  if not f or vim.fn.filereadable(f) == 0 then
    return false
  end
  local lines = vim.fn.readfile(f)
  if #lines == 0 then
    return false
  end
  local out = vim.list_extend({ M.header }, lines)
  vim.list_extend(out, { M.footer })
  local buf = chat.buf
  -- A chat that shows its conversation already (started again in the same view) needs none.
  if api.nvim_buf_line_count(buf) > 1 or api.nvim_buf_get_lines(buf, 0, 1, false)[1] ~= "" then
    return false
  end
  local was = vim.bo[buf].modifiable
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, 1, false, out)
  -- Long lines broken for the buffer, marked again (below the header line).
  local breaks = vim.fn.filereadable(breaks_file(f)) == 1 and vim.fn.readfile(breaks_file(f)) or {}
  for _, r in ipairs(breaks) do
    local row = tonumber(r)
    if row and row + 1 < #out - 2 then
      long_line.mark(buf, row + 1)
    end
  end
  local ns = api.nvim_create_namespace("acpchat_history")
  for _, row in ipairs({ 0, #out - 1 }) do
    api.nvim_buf_set_extmark(buf, ns, row, 0, { line_hl_group = "AcpChatNote" })
  end
  vim.bo[buf].modifiable = was
  vim.bo[buf].modified = false
  -- It opens at its last turn, as a live transcript follows its end (the buffer was empty).
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    pcall(api.nvim_win_set_cursor, w, { api.nvim_buf_line_count(buf), 0 })
  end
  return true
end

return M
