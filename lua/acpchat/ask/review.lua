-- Reviewing the agent's writes in vim's diff mode: a tab with the result (left, starts as the
-- current text) and the proposal (right). The hunks come from Node in one convention
-- ({ old_start, old_count, new_start, new_count }, 0-based, as nvim_buf_set_lines takes them)
-- and drive everything here: the result buffer, the keys and the counts. The answer is the list
-- of accepted hunks; Node composes the content from the same hunks.
--   ga / gr   accept / reject the hunk under the cursor      ]c / [c  next / previous hunk
--   gA / gR   accept / reject every hunk                      ZZ       finish: write the result
--   ZQ or closing the tab: reject the whole change
local bridge = require("acpchat.host.bridge")
local questions = require("acpchat.ask.questions")
local util = require("acpchat.util")

local api = vim.api
local M = {}

---@type table<string, table>
M.open_reviews = {}

--- Above this many lines, or bytes, the review buffers get no filetype (highlighting a huge
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
local function has_line_over(lines, limit)
  for _, l in ipairs(lines) do
    if #l > limit then
      return true
    end
  end
  return false
end

local function split_text(s)
  if s == nil or s == "" then
    return {}, false
  end
  local lines = vim.split(s, "\n", { plain = true })
  local eol = false
  if lines[#lines] == "" then
    table.remove(lines)
    eol = true
  end
  return lines, eol
end
M.split_text = split_text

local function new_scratch(name)
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
local function highlightable(count, bytes)
  return count <= M.max_highlight_lines and bytes <= M.max_highlight_bytes
end

local function set_filetype(buf, ft, count, bytes)
  if ft and ft ~= "" and highlightable(count, bytes) then
    vim.bo[buf].filetype = ft
  end
end

--- The notes of what was left off for size, for a winbar (empty when nothing was).
local function size_notes(highlight_off, inline_off)
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
local function fill(buf, text, count, into, done)
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
local function diff_tab(left, right, plain)
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

--- Where each hunk starts in the result buffer (0-based): its old start plus what the accepted
--- hunks above it added.
local function result_rows(r)
  local rows, shift = {}, 0
  for i, h in ipairs(r.hunks) do
    rows[i] = h.old_start + shift
    if r.accepted[i] then
      shift = shift + h.new_count - h.old_count
    end
  end
  return rows
end

--- Lines of one side of a hunk.
local function side(lines, start, count)
  return vim.list_slice(lines, start + 1, start + count)
end

--- Accept (or reject) hunk `i` in the result buffer: its range is replaced by the other side.
--- `rows`: result_rows(r), valid for every hunk at or above the ones changed so far (callers
--- going through several hunks go bottom up).
local function set_hunk(r, i, accept, rows)
  if (r.accepted[i] or false) == accept then
    return
  end
  local h = r.hunks[i]
  local start = rows[i]
  local count = r.accepted[i] and h.new_count or h.old_count
  local lines = accept and side(r.proposed, h.new_start, h.new_count) or side(r.current, h.old_start, h.old_count)
  local stop = start + count
  -- An empty result is Vim's empty buffer: its one (phantom) line is replaced, not kept.
  if r.result_count == 0 then
    stop = 1
  end
  vim.bo[r.left].modifiable = true
  api.nvim_buf_set_lines(r.left, start, stop, false, lines)
  vim.bo[r.left].modifiable = false
  r.result_count = r.result_count - count + #lines
  r.accepted[i] = accept or nil
end

local reasons = {
  conflict = "has unsaved edits of yours: the agent's change is shown for review instead of being applied",
  refresh = "changed while you reviewed it: the hunks you accepted are shown again, against the new text",
  disk = "changed on disk while it has unsaved edits of yours: the right side is the file on disk (ga/gA take its changes, ZQ keeps your buffer)",
}

--- Winbars: the result (left) says what is accepted and the keys; the right says whose it is.
local function winbars(r)
  local n = 0
  for i = 1, #r.hunks do
    if r.accepted[i] then
      n = n + 1
    end
  end
  local name = vim.fn.fnamemodify(r.path, ":~:.")
  if r.reason == "changes" then
    -- A turn's change (changes.lua): the left is the file as the agent left it, the right as it
    -- was before; "accepting" a hunk from the right takes the agent's hunk back.
    local left = string.format(
      "Now: %s · %d/%d to take back · gr/ga hunk · gR/gA all · ZZ apply · ZQ cancel",
      name,
      n,
      #r.hunks
    )
    local right = string.format("Before %s: %s", r.step or "the turn", name)
      .. size_notes(r.highlight_off, r.inline_off)
    for _, w in ipairs({ r.lw, r.rw }) do
      if api.nvim_win_is_valid(w) then
        vim.wo[w].winbar = ((w == r.lw and left or right):gsub("%%", "%%%%"))
      end
    end
    return
  end
  local left = string.format(
    "Result: %s (%d/%d hunks accepted)  ga/gr hunk · gA/gR all · ZZ done · ZQ reject",
    name,
    n,
    #r.hunks
  )
  if r.reason == "permission" then
    -- The permission question's own review: ZZ allows what is accepted (nothing accepted rejects).
    left =
      string.format("Allow? %s %d/%d accepted · ga/gr hunk · gA/gR all · ZZ allow · ZQ reject", name, n, #r.hunks)
  end
  local right =
    string.format("%s: %s (+%d -%d)", r.reason == "disk" and "On disk" or "Proposed", name, r.added, r.removed)
  if r.eol_change then
    right = right
      .. (r.eol_change == "removed" and " · no newline at end of file" or " · adds the newline at end of file")
  end
  if r.whole then
    right = right .. " · too large to compare line by line: the whole new file is shown"
  end
  if (r.cut or 0) > 0 then
    right = right
      .. string.format(" · %d long line%s cut for the view (written whole)", r.cut, r.cut == 1 and "" or "s")
  end
  right = right .. size_notes(r.highlight_off, r.inline_off)
  for _, w in ipairs({ r.lw, r.rw }) do
    if api.nvim_win_is_valid(w) then
      vim.wo[w].winbar = ((w == r.lw and left or right):gsub("%%", "%%%%"))
    end
  end
end

local function refresh(r)
  winbars(r)
  if not r.whole and api.nvim_win_is_valid(r.lw) then
    api.nvim_win_call(r.lw, function()
      vim.cmd("diffupdate")
    end)
  end
end

--- The hunk under the cursor, from either side.
local function hunk_at_cursor(r)
  local win = api.nvim_get_current_win()
  local row = api.nvim_win_get_cursor(win)[1]
  local rows = result_rows(r)
  local best, dist = nil, math.huge
  for i, h in ipairs(r.hunks) do
    local first, count
    if win == r.rw then
      first, count = h.new_start + 1, h.new_count
    else
      first, count = rows[i] + 1, r.accepted[i] and h.new_count or h.old_count
    end
    local last = first + math.max(count, 1) - 1
    local d = (row < first) and (first - row) or (row > last and (row - last) or 0)
    if d < dist then
      best, dist = i, d
    end
  end
  return best
end

--- Bytes of the lines the hunks change, both sides (counted up to `limit`).
local function changed_bytes(r, limit)
  local n = 0
  for _, h in ipairs(r.hunks) do
    for i = h.old_start + 1, h.old_start + h.old_count do
      n = n + #(r.current[i] or "")
    end
    for i = h.new_start + 1, h.new_start + h.new_count do
      n = n + #(r.proposed[i] or "")
    end
    if n > limit then
      break
    end
  end
  return n
end

--- While the tab is current, a light 'diffopt' (see max_inline_lines); the user's otherwise.
--- Whether it was needed (the user's 'diffopt' marks changes within lines by character or word).
local function light_diffopt(r)
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

local function close_tab(r)
  if r.restore_diffopt then
    r.restore_diffopt()
    pcall(api.nvim_del_augroup_by_name, "AcpChatReview" .. r.key)
  end
  if r.tab and api.nvim_tabpage_is_valid(r.tab) and #api.nvim_list_tabpages() > 1 then
    pcall(vim.api.nvim_command, "tabclose " .. api.nvim_tabpage_get_number(r.tab))
  end
end

--- The answer: the accepted hunks' indices (0-based, the order Node numbered them).
local function finish(r, accept)
  if r.done then
    return
  end
  r.done = true
  M.open_reviews[r.key] = nil
  local list = {}
  if accept then
    for i = 1, #r.hunks do
      if r.accepted[i] then
        list[#list + 1] = i - 1
      end
    end
  end
  questions.reply(r.key, { accepted = list, done = true })
  close_tab(r)
end

--- Open a review (asked by Node). `req`: path, reason, current and proposed (texts, with
--- current_lines and proposed_lines), hunks, added, removed, whole (no diff mode), eol_change.
---@param chat_id integer
function M.ask(chat_id, key, req)
  local r = {
    key = key,
    chat = chat_id,
    path = req.path,
    reason = req.reason,
    current = {},
    proposed = {},
    hunks = req.hunks or {},
    added = req.added or 0,
    removed = req.removed or 0,
    whole = req.whole,
    eol_change = req.eol_change,
    cut = req.cut,
    step = req.step,
    accepted = {},
  }
  r.result_count = req.current_lines or 0
  r.current_bytes, r.proposed_bytes = #(req.current or ""), #(req.proposed or "")
  M.open_reviews[key] = r
  -- Built over several turns of the event loop (see fill); a question withdrawn meanwhile stops it.
  local function alive()
    return not r.done and questions.is_open(key)
  end
  local function cleanup()
    for _, b in ipairs({ r.left, r.right }) do
      if b and api.nvim_buf_is_valid(b) then
        pcall(api.nvim_buf_delete, b, { force = true })
      end
    end
  end
  local tail = vim.fn.fnamemodify(req.path, ":t")
  vim.schedule(function()
    if not alive() then
      return cleanup()
    end
    r.left = new_scratch(string.format("acpchat://review/%s/result/%s", key, tail))
    r.right =
      new_scratch(string.format("acpchat://review/%s/%s/%s", key, r.reason == "disk" and "disk" or "proposed", tail))
    fill(r.left, req.current or "", req.current_lines or 0, r.current, function()
      if not alive() then
        return cleanup()
      end
      fill(r.right, req.proposed or "", req.proposed_lines or 0, r.proposed, function()
        if not alive() then
          return cleanup()
        end
        M.show(r)
      end)
    end)
  end)
end

--- The review's tab, keys and notes, once its buffers are filled.
--- Each step in a turn of its own (a filetype can take milliseconds; the first diff is computed
--- when the tab is drawn); a review closed meanwhile stops.
function M.show(r)
  local ft = vim.filetype.match({ filename = r.path }) or ""
  r.highlight_off = ft ~= ""
    and not (highlightable(#r.current, r.current_bytes) and highlightable(#r.proposed, r.proposed_bytes))
  local steps = {
    function()
      set_filetype(r.left, ft, #r.current, r.current_bytes)
    end,
    function()
      set_filetype(r.right, ft, #r.proposed, r.proposed_bytes)
    end,
    function()
      M.open_tab(r)
    end,
  }
  local function run(i)
    if r.done or not api.nvim_buf_is_valid(r.left) or not api.nvim_buf_is_valid(r.right) then
      return
    end
    steps[i]()
    if steps[i + 1] then
      vim.schedule(function()
        run(i + 1)
      end)
    end
  end
  run(1)
end

function M.open_tab(r)
  r.tab, r.lw, r.rw = diff_tab(r.left, r.right, r.whole)
  if
    not r.whole
    and (r.added + r.removed > M.max_inline_lines or changed_bytes(r, M.max_inline_bytes) > M.max_inline_bytes)
  then
    r.inline_off = light_diffopt(r)
  end
  -- The diff is computed when the tab is drawn, after this turn.
  winbars(r)
  if reasons[r.reason] then
    util.notify("acpchat: " .. r.path .. " " .. reasons[r.reason], vim.log.levels.WARN)
  end
  local function map(lhs, fn, desc)
    for _, b in ipairs({ r.left, r.right }) do
      vim.keymap.set("n", lhs, fn, { buffer = b, nowait = true, silent = true, desc = "acpchat review: " .. desc })
    end
  end
  local function one(accept)
    return function()
      local i = hunk_at_cursor(r)
      if i then
        set_hunk(r, i, accept, result_rows(r))
        refresh(r)
      end
    end
  end
  local function all(accept)
    return function()
      local rows = result_rows(r)
      for i = #r.hunks, 1, -1 do
        set_hunk(r, i, accept, rows)
      end
      refresh(r)
    end
  end
  if r.reason == "refresh" then
    -- The user accepted these already: they start accepted.
    all(true)()
  end
  if r.reason == "changes" then
    -- Taking a turn's change back: gr takes the hunk back (the right side's lines), ga keeps it.
    map("gr", one(true), "take the agent's hunk back")
    map("ga", one(false), "keep the agent's hunk")
    map("gR", all(true), "take every hunk back")
    map("gA", all(false), "keep every hunk")
    map("ZZ", function()
      finish(r, true)
    end, "finish: take back the hunks marked")
    map("ZQ", function()
      finish(r, false)
    end, "close, nothing taken back")
  else
    map("ga", one(true), "accept the hunk")
    map("gr", one(false), "reject the hunk")
    map("gA", all(true), "accept every hunk")
    map("gR", all(false), "reject every hunk")
    map("ZZ", function()
      finish(r, true)
    end, "finish: write what was accepted")
    map("ZQ", function()
      finish(r, false)
    end, "reject the change")
  end
  -- Closing the tab (or wiping a buffer) counts as reject.
  for _, b in ipairs({ r.left, r.right }) do
    api.nvim_create_autocmd({ "BufWipeout", "BufHidden" }, {
      buffer = b,
      once = true,
      callback = function()
        vim.schedule(function()
          finish(r, false)
        end)
      end,
    })
  end
end

-- For the Lua specs (test/lua/hunks_spec.lua): the hunk application on its own.
M._internal = { set_hunk = set_hunk, result_rows = result_rows, new_scratch = new_scratch }

--- Node withdrew the request (turn cancelled, agent gone): close without answering.
function M.close(key)
  local r = M.open_reviews[key]
  if r then
    r.done = true
    M.open_reviews[key] = nil
    close_tab(r)
  end
end

--- A read-only diff (tool call content). `on_close` runs after. Filled a slice per turn of
--- the event loop as a review is; past max_diff_lines or max_diff_bytes, side by side without
--- diff mode; the winbar says what was left off for size.
---@param path string
function M.show_readonly(path, old_text, new_text, on_close)
  local ft = vim.filetype.match({ filename = path }) or ""
  local n = tostring(vim.uv.hrtime())
  local tail = vim.fn.fnamemodify(path, ":t")
  local left = new_scratch("acpchat://diff/" .. n .. "/old/" .. tail)
  local right = new_scratch("acpchat://diff/" .. n .. "/new/" .. tail)
  local old, new = {}, {}
  local v = { key = "diff" .. n }
  local function alive()
    return api.nvim_buf_is_valid(left) and api.nvim_buf_is_valid(right)
  end
  local function open()
    if not alive() then
      return
    end
    local bytes = #old_text + #new_text
    local plain = #old + #new > M.max_diff_lines
      or bytes > M.max_diff_bytes
      or has_line_over(old, M.max_diff_line_bytes)
      or has_line_over(new, M.max_diff_line_bytes)
    v.tab, v.lw, v.rw = diff_tab(left, right, plain)
    local inline_off = not plain and bytes > M.max_inline_bytes and light_diffopt(v)
    local highlight_off = ft ~= "" and not (highlightable(#old, #old_text) and highlightable(#new, #new_text))
    local note = (plain and " · too large for diff mode: side by side" or "") .. size_notes(highlight_off, inline_off)
    for _, w in ipairs({ v.lw, v.rw }) do
      vim.wo[w].winbar = (
        ("acpchat diff: " .. vim.fn.fnamemodify(path, ":~:.") .. "  (q closes)" .. note):gsub("%%", "%%%%")
      )
    end
  end
  local closed = false
  local function close()
    if closed then
      return
    end
    closed = true
    close_tab(v)
    for _, b in ipairs({ left, right }) do
      if api.nvim_buf_is_valid(b) then
        pcall(api.nvim_buf_delete, b, { force = true })
      end
    end
    if on_close then
      vim.schedule(on_close)
    end
  end
  for _, b in ipairs({ left, right }) do
    vim.keymap.set("n", "q", close, { buffer = b, nowait = true, desc = "acpchat: close the diff" })
    api.nvim_create_autocmd("BufWipeout", { buffer = b, once = true, callback = close })
  end
  -- Each step in a turn of its own: the fills, each side's filetype, the tab.
  local steps = {
    function(next)
      fill(left, old_text, nil, old, next)
    end,
    function(next)
      fill(right, new_text, nil, new, next)
    end,
    function(next)
      set_filetype(left, ft, #old, #old_text)
      vim.schedule(next)
    end,
    function(next)
      set_filetype(right, ft, #new, #new_text)
      vim.schedule(next)
    end,
    function()
      open()
    end,
  }
  local function run(i)
    if closed or not alive() then
      return
    end
    steps[i](function()
      run(i + 1)
    end)
  end
  run(1)
end

--- gd on a tool call block: its diffs, read-only.
---@param chat acpchat.Chat
function M.show_tool_diff(chat, tool_call_id)
  bridge.call("tool_diffs", { chat = chat.id, tool_call_id = tool_call_id }, function(err, diffs)
    if err or #diffs == 0 then
      return util.notify("acpchat: this tool call has no diff", vim.log.levels.WARN)
    end
    for _, d in ipairs(diffs) do
      M.show_readonly(d.path, d.old_text or "", d.new_text)
    end
  end)
end

return M
