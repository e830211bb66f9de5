-- Applies render batches from Node to a chat's transcript buffer.
-- Appends touch only the end of the buffer; blocks are found through extmarks and redrawn in
-- place. Node sends at most one batch per frame, so each call here is one redraw's worth.
local text = require("acpchat.text")

local M = {}

local ns_blocks = vim.api.nvim_create_namespace("acpchat_blocks")
local ns_hl = vim.api.nvim_create_namespace("acpchat_hl")
M.ns_blocks, M.ns_hl = ns_blocks, ns_hl

local api = vim.api

--- Per-chat render state: block id -> { mark, type, index }, and the order of blocks.
local function state(chat)
  chat.render = chat.render or { blocks = {}, order = {} }
  return chat.render
end

local function block_start(buf, b)
  return api.nvim_buf_get_extmark_by_id(buf, ns_blocks, b.mark, {})[1]
end

--- First and last row (0-based, inclusive) of block `b`.
local function block_range(buf, rs, b)
  local start = block_start(buf, b)
  local nxt = rs.order[b.index + 1]
  local last
  if nxt then
    local n = rs.blocks[nxt]
    last = block_start(buf, n) - 1 - n.sep
  else
    last = api.nvim_buf_line_count(buf) - 1
  end
  return start, math.max(start, last)
end

--- Whole-line highlight for `n` rows from `first` (user words, thoughts).
local function line_hls(buf, first, n, group)
  if not group then
    return
  end
  for r = first, first + n - 1 do
    api.nvim_buf_set_extmark(buf, ns_hl, r, 0, { line_hl_group = group })
  end
end

local function apply_hls(buf, first_row, hls, line_hl, nlines)
  for _, h in ipairs(hls) do
    local row, cs, ce, group = h[1] + first_row, h[2], h[3], h[4]
    if ce == -1 then
      api.nvim_buf_set_extmark(buf, ns_hl, row, cs, { end_row = row + 1, end_col = 0, hl_group = group, hl_eol = true, strict = false })
    else
      api.nvim_buf_set_extmark(buf, ns_hl, row, cs, { end_col = ce, hl_group = group, strict = false })
    end
  end
  line_hls(buf, first_row, nlines, line_hl)
end

local function add(chat, v)
  local buf, rs = chat.buf, state(chat)
  local lines, hls, line_hl = text.block(v)
  local count = api.nvim_buf_line_count(buf)
  local empty = count == 1 and api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ""
  local prev = rs.blocks[rs.order[#rs.order]]
  -- A blank line between blocks, except under a turn header (the user's words belong to it).
  local sep = (empty or (prev and prev.type == "turn")) and 0 or 1
  local first
  if empty then
    api.nvim_buf_set_lines(buf, 0, 1, false, lines)
    first = 0
  else
    local ins = vim.list_extend(sep == 1 and { "" } or {}, lines)
    api.nvim_buf_set_lines(buf, count, count, false, ins)
    first = count + sep
  end
  -- A finished thought folds away.
  if prev and prev.type == "thought" then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      M.fold(win, block_start(buf, prev), first - 1 - sep)
    end
  end
  local mark = api.nvim_buf_set_extmark(buf, ns_blocks, first, 0, { right_gravity = false })
  local b = { mark = mark, sep = sep, type = v.type, index = #rs.order + 1, tool_call_id = v.toolCallId, view = v.type == "tool" and v or nil }
  rs.blocks[v.id] = b
  rs.order[#rs.order + 1] = v.id
  apply_hls(buf, first, hls, line_hl, #lines)
end

local function append(chat, id, s)
  local buf, rs = chat.buf, state(chat)
  local b = rs.blocks[id]
  if not b then
    return
  end
  local prefix = text.prefix[b.type] or ""
  local parts = vim.split(s, "\n", { plain = true })
  for i = 2, #parts do
    parts[i] = prefix .. parts[i]
  end
  local last = api.nvim_buf_line_count(buf) - 1
  local col = #api.nvim_buf_get_lines(buf, last, last + 1, false)[1]
  api.nvim_buf_set_text(buf, last, col, last, col, parts)
  line_hls(buf, last + 1, #parts - 1, text.line_hl[b.type])
end

local function update(chat, v)
  local buf, rs = chat.buf, state(chat)
  local b = rs.blocks[v.id]
  if not b then
    return add(chat, v)
  end
  local first, last = block_range(buf, rs, b)
  local lines, hls, line_hl = text.block(v)
  api.nvim_buf_clear_namespace(buf, ns_hl, first, last + 1)
  api.nvim_buf_set_lines(buf, first, last + 1, false, lines)
  b.view = v.type == "tool" and v or nil
  apply_hls(buf, first, hls, line_hl, #lines)
end

--- Windows showing the transcript whose cursor sits on the last line: they follow new text.
local function followers(buf)
  local out = {}
  local last = api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if api.nvim_win_get_cursor(win)[1] >= last then
      out[#out + 1] = win
    end
  end
  return out
end

--- Apply one batch of ops to chat `id` (called from Node through nvim_exec_lua).
function M.apply(id, ops)
  local chat = require("acpchat.chat").get(id)
  if not chat or not api.nvim_buf_is_valid(chat.buf) then
    return
  end
  local buf = chat.buf
  local follow = followers(buf)
  local changed = false
  vim.bo[buf].modifiable = true
  local ok, err = pcall(function()
    for _, op in ipairs(ops) do
      if op.op == "append" then
        append(chat, op.id, op.text)
        changed = true
      elseif op.op == "add" or op.op == "update" then
        (op.op == "add" and add or update)(chat, op.block)
        changed = true
        if op.block.type == "tool" then
          require("acpchat.chat").follow(chat, op.block)
        end
      elseif op.op == "meta" then
        -- A chat that fails may be hidden: say so where the user looks.
        if op.status.status == "failed" and (not chat.status or chat.status.status ~= "failed") then
          require("acpchat.util").notify(string.format("acpchat: %s stopped; the chat says why (:AcpChat restarts it)", chat.agent or "the agent"), vim.log.levels.WARN)
        end
        chat.status = op.status
        require("acpchat.chat").refresh_winbar(chat)
      elseif op.op == "turn_end" then
        chat.last_stop = op.stopReason
        chat.turn_ended = (chat.turn_ended or 0) + 1
        vim.schedule(function()
          api.nvim_exec_autocmds("User", { pattern = "AcpChatTurnEnd", data = { chat = id, stop_reason = op.stopReason }, modeline = false })
        end)
      end
    end
  end)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if changed then
    local last = api.nvim_buf_line_count(buf)
    for _, win in ipairs(follow) do
      if api.nvim_win_is_valid(win) then
        api.nvim_win_set_cursor(win, { last, 0 })
      end
    end
  end
  chat.batches = (chat.batches or 0) + 1
  api.nvim_exec_autocmds("User", { pattern = "AcpChatUpdate", data = { chat = id }, modeline = false })
  if not ok then
    require("acpchat.util").notify("render error: " .. tostring(err), vim.log.levels.ERROR)
  end
end

--- Fold rows first..last (0-based) in `win`: manual folds, since 'foldexpr' is not
--- re-evaluated for windows that are not current when the plugin changes the buffer.
function M.fold(win, first, last)
  if last < first then
    return
  end
  api.nvim_win_call(win, function()
    vim.cmd(string.format("silent! %d,%dfold", first + 1, last + 1))
  end)
end

--- A window newly showing the transcript gets the folds of every finished thought.
function M.refold(chat, win)
  local rs = state(chat)
  for i, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    local nxt = rs.order[i + 1]
    if b.type == "thought" and nxt then
      local first, last = block_range(chat.buf, rs, b)
      M.fold(win, first, last)
    end
  end
end

--- The block under a row of the transcript (for gf, gd, gt on tool calls).
function M.block_at(chat, row)
  local rs = state(chat)
  local found
  for _, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    local start = block_start(chat.buf, b)
    if start > row then
      break
    end
    found = b
  end
  return found
end

--- Start rows (0-based) of the turn headers, for ]] and [[.
function M.turn_rows(chat)
  local rs = state(chat)
  local rows = {}
  for _, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    if b.type == "turn" then
      rows[#rows + 1] = block_start(chat.buf, b)
    end
  end
  return rows
end

return M
