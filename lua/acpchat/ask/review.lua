-- Reviewing the agent's writes in vim's diff mode: a tab with the result (left, starts as the
-- current text) and the proposal (right). The hunks come from Node in one convention
-- ({ old_start, old_count, new_start, new_count }, 0-based, as nvim_buf_set_lines takes them)
-- and drive everything here: the result buffer, the keys and the counts. The answer is the list
-- of accepted hunks; Node composes the content from the same hunks.
--   ga / gr   accept / reject the hunk under the cursor      ]c / [c  next / previous hunk
--   gA / gR   accept / reject every hunk                      ZZ       finish: write the result
--   ZQ or closing the tab: reject the whole change
local questions = require("acpchat.ask.questions")
local util = require("acpchat.util")
local diff_tab = require("acpchat.diff.tab")

local api = vim.api
local M = {}

---@type table<string, table>
M.open_reviews = {}

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
  conflict = "has unsaved edits of yours: the agent's change is shown for review instead of being applied (a hunk may take your lines out: gr keeps them)",
  merged = "has unsaved edits of yours: they stay; the agent's change, made without them, is shown on top of them (ZQ keeps your buffer as it is)",
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
      "Now: %s · %d/%d to take back · gr/ga hunk · gR/gA all · ZZ apply · ZQ cancel%s",
      name,
      n,
      #r.hunks,
      r.loop and " · ]f/[f file" or ""
    )
    local right = string.format("Before %s: %s", r.step or "the turn", name)
      .. diff_tab.size_notes(r.highlight_off, r.inline_off)
    for _, w in ipairs({ r.lw, r.rw }) do
      if api.nvim_win_is_valid(w) then
        vim.wo[w].winbar = ((w == r.lw and left or right):gsub("%%", "%%%%"))
      end
    end
    return
  end
  -- What ZZ does now, given what is accepted (nothing accepted rejects, after asking).
  local verb = r.reason == "permission" and "allow" or "write"
  local zz = string.format("ZZ: %s %d of %d%s", verb, n, #r.hunks, (n == 0 and #r.hunks > 0) and " = reject" or "")
  -- ZZ first: a narrow window cuts the end (`%<`), never what ZZ does.
  local ename = name:gsub("%%", "%%%%")
  local left = string.format("%s · %%<Result: %s · ga/gr hunk · gA/gR all · ZQ reject", zz, ename)
  if r.reason == "permission" then
    left = string.format("%s · %%<Allow? %s · ga/gr hunk · gA/gR all · ZQ reject", zz, ename)
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
  right = right .. diff_tab.size_notes(r.highlight_off, r.inline_off)
  for _, w in ipairs({ r.lw, r.rw }) do
    if api.nvim_win_is_valid(w) then
      vim.wo[w].winbar = w == r.lw and left or (right:gsub("%%", "%%%%"))
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
  diff_tab.close(r)
end

--- ZZ: write (or allow) what is accepted. With nothing accepted ZZ rejects the whole change (for a
--- permission, the agent's call, and some agents end the turn on that), so in every review it asks
--- first; closing that list keeps the review open. ZQ stays the one-key reject.
function M.done(r)
  if r.done then
    return
  end
  local n = 0
  for i = 1, #r.hunks do
    if r.accepted[i] then
      n = n + 1
    end
  end
  if n > 0 or #r.hunks == 0 then
    return finish(r, true)
  end
  local reject =
    string.format("Reject the change: none of its %d hunk%s accepted", #r.hunks, #r.hunks == 1 and "" or "s")
  vim.ui.select({ reject, "Keep reviewing (ga accepts the hunk under the cursor, gA all)" }, {
    prompt = "ZZ with nothing accepted rejects the change:",
    kind = "acpchat_review_done",
  }, function(choice)
    if choice == reject then
      finish(r, true)
    end
  end)
end

--- Open a review (asked by Node). `req`: path, reason, current and proposed (texts, with
--- current_lines and proposed_lines), hunks, added, removed, whole (no diff mode), eol_change.
---@param chat_id integer
---@param key string
---@param req acpchat.question.Review
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
    unsaved = req.unsaved,
    step = req.step,
    -- A file of :AcpChatReview: shown in that review's tab (M.place), not a tab of its own.
    loop = req.loop,
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
    r.left = diff_tab.new_scratch(string.format("acpchat://review/%s/result/%s", key, tail))
    r.right = diff_tab.new_scratch(
      string.format("acpchat://review/%s/%s/%s", key, r.reason == "disk" and "disk" or "proposed", tail)
    )
    diff_tab.fill(r.left, req.current or "", req.current_lines or 0, r.current, function()
      if not alive() then
        return cleanup()
      end
      diff_tab.fill(r.right, req.proposed or "", req.proposed_lines or 0, r.proposed, function()
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
    and not (
      diff_tab.highlightable(#r.current, r.current_bytes) and diff_tab.highlightable(#r.proposed, r.proposed_bytes)
    )
  local steps = {
    function()
      diff_tab.set_filetype(r.left, ft, #r.current, r.current_bytes)
    end,
    function()
      diff_tab.set_filetype(r.right, ft, #r.proposed, r.proposed_bytes)
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

--- Set by the review loop (acpchat.review.loop): puts a review into its tab's windows;
--- returns tab, left and right windows, or nil when its tab is gone.
---@type (fun(r: table): integer?, integer?, integer?)?
M.place = nil

function M.open_tab(r)
  if r.loop and M.place then
    r.tab, r.lw, r.rw = M.place(r)
    r.keep_tab = r.tab ~= nil
  end
  if not r.tab then
    r.tab, r.lw, r.rw = diff_tab.open(r.left, r.right, r.whole)
    -- The tab names what it asks (the tabline would read the scratch buffer's name).
    if r.tab and api.nvim_tabpage_is_valid(r.tab) then
      vim.t[r.tab].acpchat_label = (r.reason == "permission" and "allow? " or "review ")
        .. vim.fn.fnamemodify(r.path, ":t")
    end
  end
  if
    not r.whole
    and (
      r.added + r.removed > diff_tab.max_inline_lines
      or changed_bytes(r, diff_tab.max_inline_bytes) > diff_tab.max_inline_bytes
    )
  then
    r.inline_off = diff_tab.light_diffopt(r)
  end
  -- The diff is computed when the tab is drawn, after this turn.
  winbars(r)
  if reasons[r.reason] then
    util.notify("acpchat: " .. r.path .. " " .. reasons[r.reason], vim.log.levels.WARN)
  elseif r.unsaved then
    util.notify(
      "acpchat: "
        .. vim.fn.fnamemodify(r.path, ":t")
        .. " has unsaved edits of yours: they stay (what you accept is put on top of them, and shown again if they are in its way)",
      vim.log.levels.WARN
    )
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
      M.done(r)
    end, "finish: write what was accepted (nothing accepted: asks first)")
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
M._internal = { set_hunk = set_hunk, result_rows = result_rows, new_scratch = diff_tab.new_scratch }

--- Node withdrew the request (turn cancelled, agent gone): close without answering.
function M.close(key)
  local r = M.open_reviews[key]
  if r then
    r.done = true
    M.open_reviews[key] = nil
    diff_tab.close(r)
  end
end

return M
