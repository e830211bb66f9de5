-- Local history: the transcript as this plugin drew it, kept per session (after each turn), and
-- shown when a session is resumed by an agent that does not replay it (session/resume).
-- Transcripts are redacted in Node before they are drawn, so no secret is written here.
local api = vim.api

local M = {}

function M.dir()
  return vim.fn.stdpath("state") .. "/acpchat/history"
end

local function file(session_id)
  return M.dir() .. "/" .. session_id:gsub("[^%w%-_.]", "_") .. ".md"
end

-- Saves in flight, by file: a save asked for meanwhile runs once that one is done.
local writing = {}

--- Write `text` to `path` off the editor's thread (libuv's pool): a temporary file renamed over
--- the old one, so a reader never sees half of it. `done()` runs when it is over.
local function write_async(path, text, done)
  local tmp = path .. ".tmp"
  vim.uv.fs_open(tmp, "w", 420, function(err, fd)
    if err or not fd then
      return done()
    end
    vim.uv.fs_write(fd, text, -1, function()
      vim.uv.fs_close(fd, function()
        vim.uv.fs_rename(tmp, path, function()
          done()
        end)
      end)
    end)
  end)
end

--- Keep the chat's transcript for its session (a turn ended). The write happens in the
--- background: a long session's transcript is megabytes, and a turn's end must not wait on disk.
function M.save(chat)
  local sid = chat.status and chat.status.session_id
  if not sid or not api.nvim_buf_is_valid(chat.buf) then
    return
  end
  local path = file(sid)
  if writing[path] then
    writing[path] = chat -- again once the one in flight is done
    return
  end
  writing[path] = true
  vim.fn.mkdir(M.dir(), "p")
  local text = table.concat(api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n") .. "\n"
  write_async(path, text, function()
    local again = writing[path]
    writing[path] = nil
    if type(again) == "table" then
      vim.schedule(function()
        M.save(again)
      end)
    end
  end)
end

M.header = "── local history: what this chat showed before; the agent resumed the session without replaying it ──"
M.footer = "── end of local history ──"

--- A resumed session with nothing replayed: show what was recorded for it, marked as such.
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
  local ns = api.nvim_create_namespace("acpchat_history")
  for _, row in ipairs({ 0, #out - 1 }) do
    api.nvim_buf_set_extmark(buf, ns, row, 0, { line_hl_group = "AcpChatNote" })
  end
  vim.bo[buf].modifiable = was
  vim.bo[buf].modified = false
  return true
end

return M
