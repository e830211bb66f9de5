-- Reviewing the agent's writes in vim's diff mode: a tab with the result (left, starts as the
-- current text) and the proposal (right). Hunks come from Node (computed with the `diff`
-- package); the result is rebuilt from which hunks are accepted.
--   ga / gr   accept / reject the hunk under the cursor      ]c / [c  next / previous hunk
--   gA / gR   accept / reject every hunk                      ZZ       finish: write the result
--   ZQ or closing the tab: reject the whole change
local bridge = require("acpchat.bridge")
local questions = require("acpchat.questions")
local util = require("acpchat.util")

local api = vim.api
local M = {}

---@type table<string, table>
M.open_reviews = {}

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

--- Old (-) and new (+) lines of a hunk, without "\ No newline" markers.
local function sides(h)
  local old, new = {}, {}
  for _, l in ipairs(h.lines) do
    local c = l:sub(1, 1)
    if c == "-" then
      old[#old + 1] = l:sub(2)
    elseif c == "+" then
      new[#new + 1] = l:sub(2)
    end
  end
  return old, new
end

--- The result of applying the accepted hunks to `original`; also where each hunk landed.
function M.compose(original, hunks, accepted)
  local out, rows = {}, {}
  local pos = 1
  for i, h in ipairs(hunks) do
    local start = h.old_lines == 0 and (h.old_start + 1) or h.old_start
    for k = pos, start - 1 do
      out[#out + 1] = original[k]
    end
    local old, new = sides(h)
    local take = accepted[i] and new or old
    rows[i] = { first = #out + 1, count = #take }
    for _, l in ipairs(take) do
      out[#out + 1] = l
    end
    pos = start + h.old_lines
  end
  for k = pos, #original do
    out[#out + 1] = original[k]
  end
  return out, rows
end

local function scratch(name, lines, ft)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if ft and ft ~= "" then
    vim.bo[buf].filetype = ft
  end
  return buf
end

--- Open a diff tab: left and right buffers under :diffthis. Returns tab, left win, right win.
local function diff_tab(left, right)
  vim.cmd("stopinsert")
  vim.cmd("tabnew")
  local tab = api.nvim_get_current_tabpage()
  local lw = api.nvim_get_current_win()
  local empty = api.nvim_get_current_buf()
  api.nvim_win_set_buf(lw, left)
  vim.cmd("diffthis")
  vim.cmd("rightbelow vsplit")
  local rw = api.nvim_get_current_win()
  api.nvim_win_set_buf(rw, right)
  vim.cmd("diffthis")
  if api.nvim_buf_is_valid(empty) and empty ~= left and empty ~= right then
    pcall(api.nvim_buf_delete, empty, { force = true })
  end
  api.nvim_set_current_win(lw)
  return tab, lw, rw
end

local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

--- Winbars: the result (left) says what is accepted and the keys; the proposal (right) says whose it is.
local function summary(r)
  local n = 0
  for i = 1, #r.hunks do
    if r.accepted[i] then
      n = n + 1
    end
  end
  local name = vim.fn.fnamemodify(r.path, ":~:.")
  local left = string.format("Result: %s (%d/%d hunks accepted)  ga/gr hunk · gA/gR all · ZZ done · ZQ reject", name, n, #r.hunks)
  local right = string.format("Proposed: %s (+%d -%d)", name, r.added, r.removed)
  return left, right
end

local function redraw(r)
  local lines, rows = M.compose(r.original, r.hunks, r.accepted)
  r.result, r.rows = lines, rows
  set_lines(r.left, lines)
  local left, right = summary(r)
  for _, w in ipairs({ r.lw, r.rw }) do
    if api.nvim_win_is_valid(w) then
      vim.wo[w].winbar = ((w == r.lw and left or right):gsub("%%", "%%%%"))
      api.nvim_win_call(w, function()
        vim.cmd("diffupdate")
      end)
    end
  end
end

--- The hunk under the cursor, from either side.
local function hunk_at_cursor(r)
  local win = api.nvim_get_current_win()
  local row = api.nvim_win_get_cursor(win)[1]
  local best, dist = nil, math.huge
  for i, h in ipairs(r.hunks) do
    local first, count
    if win == r.rw then
      first, count = h.new_start, h.new_lines
      if count == 0 then
        first = h.new_start + 1
      end
    else
      first, count = r.rows[i].first, r.rows[i].count
    end
    local last = first + math.max(count, 1) - 1
    local d = (row < first) and (first - row) or (row > last and (row - last) or 0)
    if d < dist then
      best, dist = i, d
    end
  end
  return best
end

local function finish(r, accepted_any)
  if r.done then
    return
  end
  r.done = true
  M.open_reviews[r.key] = nil
  local content
  if accepted_any then
    content = table.concat(r.result, "\n")
    -- The end of the last line is the proposal's (only accepted content reaches this point).
    if #r.result > 0 and r.eol_new then
      content = content .. "\n"
    end
  end
  questions.reply(r.key, { accepted = accepted_any and true or false, content = content })
  if api.nvim_tabpage_is_valid(r.tab) and #api.nvim_list_tabpages() > 1 then
    local tabnr = api.nvim_tabpage_get_number(r.tab)
    pcall(vim.cmd, "tabclose " .. tabnr)
  end
end

local function any_accepted(r)
  for i = 1, #r.hunks do
    if r.accepted[i] then
      return true
    end
  end
  return false
end

--- Open a review for a write (asked by Node). `req`: path, current, proposed, hunks, added, removed, reason.
function M.ask(chat_id, key, req)
  vim.schedule(function()
    local original, eol_old = split_text(req.current)
    local proposed, eol_new = split_text(req.proposed)
    local ft = vim.filetype.match({ filename = req.path }) or ""
    local r = {
      key = key,
      chat = chat_id,
      path = req.path,
      original = original,
      proposed = proposed,
      eol_old = eol_old,
      eol_new = eol_new,
      hunks = req.hunks,
      added = req.added,
      removed = req.removed,
      accepted = {},
    }
    M.open_reviews[key] = r
    r.left = scratch(string.format("acpchat://review/%s/result/%s", key, vim.fn.fnamemodify(req.path, ":t")), original, ft)
    r.right = scratch(string.format("acpchat://review/%s/proposed/%s", key, vim.fn.fnamemodify(req.path, ":t")), proposed, ft)
    r.tab, r.lw, r.rw = diff_tab(r.left, r.right)
    redraw(r)
    if req.reason == "conflict" then
      util.notify("acpchat: " .. req.path .. " has unsaved edits of yours: the agent's change is shown for review instead of being applied", vim.log.levels.WARN)
    end
    local function map(lhs, fn, desc)
      for _, b in ipairs({ r.left, r.right }) do
        vim.keymap.set("n", lhs, fn, { buffer = b, nowait = true, silent = true, desc = "acpchat review: " .. desc })
      end
    end
    local function set_hunk(accept)
      return function()
        local i = hunk_at_cursor(r)
        if i then
          r.accepted[i] = accept
          redraw(r)
        end
      end
    end
    map("ga", set_hunk(true), "accept the hunk")
    map("gr", set_hunk(false), "reject the hunk")
    map("gA", function()
      for i = 1, #r.hunks do
        r.accepted[i] = true
      end
      redraw(r)
    end, "accept every hunk")
    map("gR", function()
      r.accepted = {}
      redraw(r)
    end, "reject every hunk")
    map("ZZ", function()
      finish(r, any_accepted(r))
    end, "finish: write what was accepted")
    map("ZQ", function()
      finish(r, false)
    end, "reject the change")
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
  end)
end

--- Node withdrew the request (turn cancelled, agent gone): close without answering.
function M.close(key)
  local r = M.open_reviews[key]
  if r then
    r.done = true
    M.open_reviews[key] = nil
    if api.nvim_tabpage_is_valid(r.tab) and #api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, "tabclose " .. api.nvim_tabpage_get_number(r.tab))
    end
  end
end

--- A read-only diff (tool call content, or a permission question's diff). `on_close` runs after.
function M.show_readonly(path, old_text, new_text, on_close)
  local old = split_text(old_text)
  local new = split_text(new_text)
  local ft = vim.filetype.match({ filename = path }) or ""
  local n = tostring(vim.uv.hrtime())
  local left = scratch("acpchat://diff/" .. n .. "/old/" .. vim.fn.fnamemodify(path, ":t"), old, ft)
  local right = scratch("acpchat://diff/" .. n .. "/new/" .. vim.fn.fnamemodify(path, ":t"), new, ft)
  local tab, lw, rw = diff_tab(left, right)
  for _, w in ipairs({ lw, rw }) do
    vim.wo[w].winbar = (("acpchat diff: " .. vim.fn.fnamemodify(path, ":~:.") .. "  (q closes)"):gsub("%%", "%%%%"))
  end
  local closed = false
  local function close()
    if closed then
      return
    end
    closed = true
    if api.nvim_tabpage_is_valid(tab) and #api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, "tabclose " .. api.nvim_tabpage_get_number(tab))
    end
    if on_close then
      vim.schedule(on_close)
    end
  end
  for _, b in ipairs({ left, right }) do
    vim.keymap.set("n", "q", close, { buffer = b, nowait = true, desc = "acpchat: close the diff" })
    api.nvim_create_autocmd("BufWipeout", { buffer = b, once = true, callback = close })
  end
end

--- gd on a tool call block: its diffs, read-only.
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

--- "Show the diff first" from a permission question; `back` asks the question again.
function M.show_permission_diff(_, q, back)
  local d = q.diffs[1]
  M.show_readonly(d.path, d.old_text or "", d.new_text or "", back)
end

return M
