-- A tab of two scratch buffers side by side, in vim's diff mode unless too large: what the
-- review of a write (acpchat.ask.review) and the read-only diff of a tool call
-- (acpchat.diff.view) are built on. The buffers are filled a slice per turn of the
-- editor's loop, and whatever is too large for the editor to do in a frame is left off
-- (highlighting, inline diffs, diff mode itself), with a note saying so.
local api = vim.api
local M = {}

--- Above this many lines, or bytes, the buffers get no filetype (highlighting a huge
--- file, or one huge line, would hold the editor longer than a frame); the winbar says so.
M.max_highlight_lines = 20000
M.max_highlight_bytes = 1024 * 1024

--- Above this many changed lines, or bytes of changed lines, the review tab uses 'diffopt'
--- inline:simple instead of inline:char or inline:word (Neovim 0.12 computes those for a whole
--- changed block on every redraw: 400 ms for 10,000 lines, seconds for one 1 MB line). Only
--- while the review tab is the current one.
M.max_inline_lines = 1000
M.max_inline_bytes = 64 * 1024

--- Above this many lines, or bytes, on both sides together, or with a line longer than
--- max_diff_line_bytes, a read-only diff is shown side by side without diff mode (Neovim's diff
--- mode would hold the editor on every redraw), as Node decides for reviews (WHOLE_FILE_* in
--- src/workspace/write-plan.ts).
M.max_diff_lines = 50000
M.max_diff_bytes = 4 * 1024 * 1024
M.max_diff_line_bytes = 64 * 1024

--- Whether a list of lines has one longer than `limit` bytes.
function M.has_line_over(lines, limit)
  for _, l in ipairs(lines) do
    if #l > limit then
      return true
    end
  end
  return false
end

function M.new_scratch(name)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1
  vim.bo[buf].modifiable = false
  return buf
end

--- Whether a side of `count` lines and `bytes` bytes is small enough to highlight.
function M.highlightable(count, bytes)
  return count <= M.max_highlight_lines and bytes <= M.max_highlight_bytes
end

function M.set_filetype(buf, ft, count, bytes)
  if ft and ft ~= "" and M.highlightable(count, bytes) then
    vim.bo[buf].filetype = ft
  end
end

--- The notes of what was left off for size, for a winbar (empty when nothing was).
function M.size_notes(highlight_off, inline_off)
  local notes = {}
  if highlight_off then
    notes[#notes + 1] = " · too large to highlight: no syntax colours"
  end
  if inline_off then
    notes[#notes + 1] = " · too large for inline diff: changes in a line marked as one span"
  end
  return table.concat(notes)
end

--- Lines, and bytes, per event-loop turn when a review's buffers are filled: each turn stays
--- well under a frame, so the editor keeps answering while a large file opens. A line longer
--- than chunk_bytes goes in alone, whole (in parts, each part would copy the line again).
M.chunk_lines = 4000
M.chunk_bytes = 256 * 1024

--- Fill `buf` with the `count` lines of `text` (joined with "\n"; nil: every line of `text`, a
--- final newline ending the last one), a slice per turn, collecting them into `into`; then
--- call `done` (not if the buffer went away).
function M.fill(buf, text, count, into, done)
  local pos, filled = 1, false
  local function more()
    if count then
      return #into < count
    end
    return pos <= #text
  end
  local function step()
    if not api.nvim_buf_is_valid(buf) then
      return
    end
    local chunk, bytes = {}, 0
    while more() and #chunk < M.chunk_lines and bytes < M.chunk_bytes do
      local nl = text:find("\n", pos, true)
      local last = (nl or #text + 1) - 1
      if #chunk > 0 and bytes + last - pos > M.chunk_bytes then
        break
      end
      local line = text:sub(pos, last)
      chunk[#chunk + 1] = line
      into[#into + 1] = line
      bytes = bytes + #line + 1
      pos = last + 2
    end
    if #chunk > 0 then
      vim.bo[buf].modifiable = true
      api.nvim_buf_set_lines(buf, filled and -1 or 0, -1, false, chunk)
      vim.bo[buf].modifiable = false
      filled = true
    end
    if more() then
      vim.schedule(step)
    else
      vim.schedule(done)
    end
  end
  step()
end

--- Open a tab with `left` and `right` side by side, under :diffthis unless `plain`.
function M.open(left, right, plain)
  vim.cmd("stopinsert")
  vim.cmd("tabnew")
  local tab = api.nvim_get_current_tabpage()
  local lw = api.nvim_get_current_win()
  local empty = api.nvim_get_current_buf()
  if plain then
    -- As diff mode does: a huge line is not wrapped (measured on every redraw, seconds for 12 MB).
    vim.wo[lw].wrap = false
  end
  api.nvim_win_set_buf(lw, left)
  if not plain then
    vim.cmd("diffthis")
  end
  vim.cmd("rightbelow vsplit")
  local rw = api.nvim_get_current_win()
  api.nvim_win_set_buf(rw, right)
  if not plain then
    vim.cmd("diffthis")
  else
    vim.wo[lw].scrollbind, vim.wo[rw].scrollbind = true, true
  end
  if api.nvim_buf_is_valid(empty) and empty ~= left and empty ~= right then
    pcall(api.nvim_buf_delete, empty, { force = true })
  end
  api.nvim_set_current_win(lw)
  return tab, lw, rw
end

--- While the tab is current, a light 'diffopt' (see max_inline_lines); the user's otherwise.
--- Whether it was needed (the user's 'diffopt' marks changes within lines by character or word).
function M.light_diffopt(r)
  local heavy = false
  for _, item in ipairs(vim.split(vim.o.diffopt, ",", { plain = true })) do
    if item == "inline:char" or item == "inline:word" then
      heavy = true
    end
  end
  if not heavy then
    return false
  end
  local saved
  local function enter()
    if not saved and api.nvim_get_current_tabpage() == r.tab then
      saved = vim.o.diffopt
      local items = vim.tbl_filter(function(i)
        return not i:match("^inline:")
      end, vim.split(saved, ",", { plain = true }))
      table.insert(items, "inline:simple")
      vim.o.diffopt = table.concat(items, ",")
    end
  end
  local function leave()
    if saved then
      vim.o.diffopt = saved
      saved = nil
    end
  end
  r.restore_diffopt = leave
  local group = api.nvim_create_augroup("AcpChatReview" .. r.key, { clear = true })
  api.nvim_create_autocmd("TabEnter", { group = group, callback = enter })
  api.nvim_create_autocmd("TabLeave", {
    group = group,
    callback = function()
      if api.nvim_get_current_tabpage() == r.tab then
        leave()
      end
    end,
  })
  enter()
  return true
end

function M.close(r)
  if r.restore_diffopt then
    r.restore_diffopt()
    pcall(api.nvim_del_augroup_by_name, "AcpChatReview" .. r.key)
  end
  -- A review shown in a tab it does not own (the review loop's) leaves the tab open.
  if r.tab and not r.keep_tab and api.nvim_tabpage_is_valid(r.tab) and #api.nvim_list_tabpages() > 1 then
    pcall(vim.api.nvim_command, "tabclose " .. api.nvim_tabpage_get_number(r.tab))
  end
end

return M
