-- :AcpChatReview (|acpchat-review-loop|): one tab with every file changed over several turns,
-- like a pull request. Left: the list (status, +/-, which turns; then the comments); right: the
-- file under the cursor in vim's diff mode, the take-back review of the whole range (gr/gR/ZZ
-- as in gd's review, ask/review.lua, placed here instead of a tab of its own). Node computes
-- the range and takes hunks back (src/nvim/calls/review-calls.ts).
local bridge = require("acpchat.host.bridge")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local text = require("acpchat.transcript.text")
local review = require("acpchat.ask.review")
local comments = require("acpchat.review.comments")
local diff_tab = require("acpchat.diff.tab")

local api = vim.api
local M = {}

---@class acpchat.ReviewLoop
---@field chat integer
---@field tab integer
---@field list_buf integer
---@field list_win integer
---@field lw integer
---@field rw integer
---@field since integer?
---@field from integer
---@field title string
---@field label string? the range ("turns 1-2"), for the tab's label
---@field label_file string? the path last shown, for the tab's label
---@field files table[]
---@field shown string? the path whose review is shown (or asked for)
---@field shown_abs string?
---@field placed string? the path whose review is in the diff windows now
---@field comment_rows table<integer, acpchat.Comment>

---@type table<integer, acpchat.ReviewLoop> by tab
M.loops = {}

local status_letter = { added = "A", deleted = "D", modified = "M", renamed = "R", type = "T" }

--- Whether the user changed `f` since the range's last turn: unsaved edits in its buffer, or
--- a change on disk (Node compares with the checkpoint: review_edited). A take-back there is
--- merged with those changes, so the list says so before one is made.
---@return string? why
local function edited(loop, f)
  local buf = vim.fn.bufnr(f.abs)
  if buf > 0 and api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
    return "unsaved edits"
  end
  return loop.edited and loop.edited[f.path] and "changed since" or nil
end

--- The list's lines: one per file (line i is file i), then the comments.
local function list_lines(loop)
  local lines = {}
  for _, f in ipairs(loop.files) do
    local figures = f.binary and "(binary)" or f.large and "(large)" or string.format("+%d -%d", f.added, f.removed)
    -- The mark also goes next to the status letter: the line's end is cut in a narrow list.
    local why = edited(loop, f)
    lines[#lines + 1] = string.format(
      "%s%s %s%s  %s  %s",
      status_letter[f.status] or "?",
      why and "✎" or " ",
      text.flat(f.path, 200),
      f.from and (" ← " .. text.flat(f.from, 100)) or "",
      figures,
      text.flat(table.concat(f.steps or {}, ", "), 100)
    ) .. (why and ("  ✎ " .. why) or "")
  end
  loop.comment_rows = {}
  local all = comments.by_chat[loop.chat] or {}
  if #all > 0 then
    local chat = registry.get(loop.chat)
    local cwd = chat and chat.cwd or vim.fn.getcwd()
    lines[#lines + 1] = ""
    lines[#lines + 1] = string.format("Comments (%d pending) · x removes one", #comments.pending(loop.chat))
    for _, c in ipairs(all) do
      local path, first = comments.where(c, cwd)
      lines[#lines + 1] = string.format(
        "  %s %s:%s  %s",
        c.sent and "✓" or "◆",
        text.flat(path, 120),
        first and tostring(first) or "?",
        text.flat(c.text, 200)
      )
      loop.comment_rows[#lines] = c
    end
  end
  return lines
end

--- The tab's label (chat/tabline.lua draws it): the range and the file shown, not the list's
--- buffer name (`acpchat: 1`).
local function label(loop)
  if api.nvim_tabpage_is_valid(loop.tab) then
    local file = loop.label_file and vim.fn.fnamemodify(loop.label_file, ":t")
    vim.t[loop.tab].acpchat_label = "review " .. (loop.label or "") .. (file and (": " .. file) or "")
    vim.cmd.redrawtabline()
  end
end

local function draw(loop)
  label(loop)
  if not api.nvim_buf_is_valid(loop.list_buf) then
    return
  end
  vim.bo[loop.list_buf].modifiable = true
  api.nvim_buf_set_lines(loop.list_buf, 0, -1, false, list_lines(loop))
  vim.bo[loop.list_buf].modifiable = false
  if api.nvim_win_is_valid(loop.list_win) then
    -- Cut at the end when narrow (%<): the range's title is what matters.
    local n = #loop.files
    local bar = string.format("%s · %d file%s · <CR> ]f [f · x · q", loop.title, n, n == 1 and "" or "s")
    vim.wo[loop.list_win].winbar = bar:gsub("%%", "%%%%") .. "%<"
  end
end

--- Ask Node which files changed on disk since the range's last turn; redraw with the marks.
local function ask_edited(loop)
  local paths = vim.tbl_map(function(f)
    return f.path
  end, loop.files)
  if #paths == 0 then
    return
  end
  local from = loop.from
  bridge.call("review_edited", { chat = loop.chat, from = from, paths = paths }, function(err, r)
    if err or loop.from ~= from then
      return
    end
    loop.edited = {}
    for _, p in ipairs(r.paths) do
      loop.edited[p] = true
    end
    draw(loop)
  end)
end

--- The file on list row `row` (1-based), if it is a file's row.
local function file_at(loop, row)
  return loop.files[row]
end

--- Show the take-back review of `f` in the diff windows (Node asks it as a review question).
local function show_file(loop, f)
  if not f or loop.shown == f.path then
    return
  end
  loop.shown, loop.shown_abs, loop.placed, loop.label_file = f.path, f.abs, nil, f.path
  label(loop)
  if f.binary or f.large then
    return util.notify(
      string.format("acpchat: %s is %s: no hunks to show", f.path, f.binary and "binary" or "over the size limit")
    )
  end
  bridge.call("review_file", { chat = loop.chat, from = loop.from, path = f.path }, function(err, r)
    ---@cast r acpchat.reply.ReviewFile
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    if r.outcome == "nothing taken back" then
      return
    end
    util.notify("acpchat: " .. r.outcome)
    local chat = registry.get(loop.chat)
    if chat then
      require("acpchat.checkpoints.changes").ask_conflicts(chat, r.conflicts)
    end
    -- The files as they are now: the list again, and the same file's review.
    loop.shown = nil
    M.refresh(loop, f.path)
  end)
end

--- The review asked for by show_file: into this loop's diff windows.
---@param r table a review of ask/review.lua
function M.place(r)
  for _, loop in pairs(M.loops) do
    if loop.chat == r.chat and loop.shown_abs == r.path then
      if
        not (api.nvim_tabpage_is_valid(loop.tab) and api.nvim_win_is_valid(loop.lw) and api.nvim_win_is_valid(loop.rw))
      then
        return nil
      end
      -- The review shown before (of another file) is closed as "nothing taken back" when its
      -- buffers leave the windows (review.lua's BufHidden).
      for _, pair in ipairs({ { loop.lw, r.left }, { loop.rw, r.right } }) do
        local w, b = pair[1], pair[2]
        api.nvim_win_set_buf(w, b)
        api.nvim_win_call(w, function()
          vim.cmd(r.whole and "diffoff" or "diffthis")
        end)
        vim.wo[w].wrap = false
      end
      M.keys(loop, { r.left, r.right })
      loop.placed = loop.shown
      return loop.tab, loop.lw, loop.rw
    end
  end
  return nil
end

--- Next (dir 1) or previous (-1) file: the list's cursor moves, its review shows.
local function step(loop, dir)
  if #loop.files == 0 then
    return
  end
  local row = api.nvim_win_get_cursor(loop.list_win)[1]
  local cur = row
  for i, f in ipairs(loop.files) do
    if f.path == loop.shown then
      cur = i
    end
  end
  local nxt = math.max(1, math.min(#loop.files, (row <= #loop.files and cur or #loop.files) + dir))
  api.nvim_win_set_cursor(loop.list_win, { nxt, 0 })
  show_file(loop, loop.files[nxt])
end

--- The tab's keys, on the list and on the buffers of each review placed in it.
function M.keys(loop, bufs)
  for _, b in ipairs(bufs) do
    local function map(lhs, fn, desc)
      vim.keymap.set("n", lhs, fn, { buffer = b, nowait = true, silent = true, desc = "acpchat review: " .. desc })
    end
    map("]f", function()
      step(loop, 1)
    end, "next file")
    map("[f", function()
      step(loop, -1)
    end, "previous file")
  end
end

local function list_keys(loop)
  local b = loop.list_buf
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = b, nowait = true, silent = true, desc = "acpchat review: " .. desc })
  end
  M.keys(loop, { b })
  map("<CR>", function()
    local f = file_at(loop, api.nvim_win_get_cursor(0)[1])
    if f then
      loop.shown = nil
      show_file(loop, f)
      api.nvim_set_current_win(loop.lw)
    end
  end, "the file's review")
  map("x", function()
    local c = loop.comment_rows[api.nvim_win_get_cursor(0)[1]]
    if c then
      comments.remove(c)
    end
  end, "remove the comment")
  map("q", function()
    M.close(loop)
  end, "close the review")
  map("ZQ", function()
    M.close(loop)
  end, "close the review")
  -- The shown file's review keys work from the list too (Vim's ZZ would close the list's
  -- window and leave the tab without it); gr/ga need a hunk under the cursor.
  for _, lhs in ipairs({ "ZZ", "gR", "gA" }) do
    map(lhs, function()
      -- Only on the review of the file under the cursor: one still on its way (the cursor
      -- moved a moment ago) would leave the previous file's review in the windows.
      local f = file_at(loop, api.nvim_win_get_cursor(0)[1])
      if not f or f.path ~= loop.placed then
        return util.notify("acpchat: " .. lhs .. ": the review of the file under the cursor is not shown yet")
      end
      if api.nvim_win_is_valid(loop.lw) then
        if lhs == "ZZ" then
          loop.placed = nil -- that review ends here; the next is placed after the take-back
        end
        api.nvim_win_call(loop.lw, function()
          vim.cmd("normal " .. lhs)
        end)
      end
    end, "the shown file's " .. lhs)
  end
  for _, lhs in ipairs({ "gr", "ga" }) do
    map(lhs, function()
      util.notify("acpchat: " .. lhs .. " marks the hunk under the cursor: in the diff windows (<C-w>l)")
    end, "hint")
  end
  -- The list closed some other way (:q, <C-w>c): the whole review goes with it.
  api.nvim_create_autocmd("WinClosed", {
    pattern = tostring(loop.list_win),
    once = true,
    callback = function()
      if M.loops[loop.tab] == loop then
        vim.schedule(function()
          M.close(loop)
        end)
      end
    end,
  })
  api.nvim_create_autocmd("CursorMoved", {
    buffer = b,
    callback = function()
      local f = file_at(loop, api.nvim_win_get_cursor(0)[1])
      if f and f.path ~= loop.shown then
        -- After the cursor rests: moving over many files asks for one review, not each.
        vim.defer_fn(function()
          if api.nvim_win_is_valid(loop.list_win) and file_at(loop, api.nvim_win_get_cursor(loop.list_win)[1]) == f then
            show_file(loop, f)
          end
        end, 120)
      end
    end,
  })
end

function M.close(loop)
  M.loops[loop.tab] = nil
  for _, w in ipairs({ loop.lw, loop.rw }) do
    if api.nvim_win_is_valid(w) then
      api.nvim_win_call(w, function()
        vim.cmd("diffoff")
      end)
    end
  end
  if api.nvim_tabpage_is_valid(loop.tab) and #api.nvim_list_tabpages() > 1 then
    pcall(api.nvim_command, "tabclose " .. api.nvim_tabpage_get_number(loop.tab))
  end
end

--- The tab: list on the left, two diff windows on the right (empty until a file is shown).
local function open_tab(chat)
  vim.cmd("stopinsert")
  vim.cmd("tabnew")
  local tab = api.nvim_get_current_tabpage()
  vim.t.acpchat_chat = chat.id
  local list_win = api.nvim_get_current_win()
  local empty = api.nvim_get_current_buf()
  local list_buf = diff_tab.new_scratch(string.format("acpchat://review-list/%d", chat.id))
  vim.bo[list_buf].filetype = "acpchat-review"
  api.nvim_win_set_buf(list_win, list_buf)
  vim.cmd("rightbelow vsplit")
  local lw = api.nvim_get_current_win()
  vim.cmd("rightbelow vsplit")
  local rw = api.nvim_get_current_win()
  for _, w in ipairs({ lw, rw }) do
    api.nvim_win_set_buf(w, diff_tab.new_scratch(string.format("acpchat://review-list/%d/empty-%d", chat.id, w)))
  end
  if api.nvim_buf_is_valid(empty) and empty ~= list_buf then
    pcall(api.nvim_buf_delete, empty, { force = true })
  end
  api.nvim_win_set_width(list_win, math.max(30, math.floor(vim.o.columns * 0.3)))
  vim.wo[list_win].wrap, vim.wo[list_win].number, vim.wo[list_win].cursorline = false, false, true
  api.nvim_set_current_win(list_win)
  local loop = { chat = chat.id, tab = tab, list_buf = list_buf, list_win = list_win, lw = lw, rw = rw, files = {} }
  M.loops[tab] = loop
  list_keys(loop)
  return loop
end

--- The loop of `chat` in an open tab, if any.
local function loop_of(chat_id)
  for tab, loop in pairs(M.loops) do
    if not api.nvim_tabpage_is_valid(tab) then
      M.loops[tab] = nil
    elseif loop.chat == chat_id then
      return loop
    end
  end
end

--- The list again (after a take-back, or a comment); `path`: show that file's review.
function M.refresh(loop, path)
  bridge.call("review_list", { chat = loop.chat, since = loop.since }, function(err, r)
    ---@cast r acpchat.reply.ReviewList
    if err then
      loop.files = {}
      draw(loop)
      return util.notify("acpchat: " .. err)
    end
    loop.from, loop.title, loop.label, loop.files = r.from, r.title, r.label, r.files
    draw(loop)
    ask_edited(loop)
    for i, f in ipairs(loop.files) do
      if f.path == path then
        api.nvim_win_set_cursor(loop.list_win, { i, 0 })
        show_file(loop, f)
      end
    end
  end)
end

--- :AcpChatReview [N | send | approve]
function M.command(arg)
  local chat = registry.need()
  if not chat then
    return
  end
  arg = vim.trim(arg or "")
  if arg == "send" then
    return comments.send(chat)
  elseif arg == "approve" then
    return bridge.call("review_approve", { chat = chat.id }, function(err, r)
      ---@cast r acpchat.reply.ReviewApprove
      if err then
        return util.notify("acpchat: " .. err, vim.log.levels.WARN)
      end
      util.notify("acpchat: approved up to " .. r.label .. ": the next :AcpChatReview starts after it")
      local loop = loop_of(chat.id)
      if loop then
        M.close(loop)
      end
    end)
  end
  local since
  if arg ~= "" then
    since = tonumber(arg)
    if not since or since < 1 or since % 1 ~= 0 then
      error(string.format('expected a turn number, "send" or "approve", got %q', arg), 0)
    end
  end
  bridge.call("review_list", { chat = chat.id, since = since }, function(err, r)
    ---@cast r acpchat.reply.ReviewList
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    if #r.files == 0 then
      return util.notify("acpchat: " .. r.title .. ": no files changed")
    end
    local loop = loop_of(chat.id)
    if loop then
      api.nvim_set_current_tabpage(loop.tab)
      api.nvim_set_current_win(loop.list_win)
    else
      loop = open_tab(chat)
    end
    loop.since, loop.from, loop.title, loop.label, loop.files, loop.shown =
      since, r.from, r.title, r.label, r.files, nil
    draw(loop)
    ask_edited(loop)
    api.nvim_win_set_cursor(loop.list_win, { 1, 0 })
    show_file(loop, loop.files[1])
  end)
end

review.place = M.place
comments.on_change = function(chat_id)
  local loop = loop_of(chat_id)
  if loop then
    draw(loop)
  end
end

return M
