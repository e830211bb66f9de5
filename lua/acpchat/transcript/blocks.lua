-- Where each block of a transcript is: an extmark at its first row, and the order of blocks.
-- Shared by render.lua (which draws them) and the keys and folds that find them again.
local api = vim.api

local M = {}

M.ns = api.nvim_create_namespace("acpchat_blocks")

--- Per-chat render state: block id -> { mark, type, index, sep, view }, and the order of blocks.
---@param chat acpchat.Chat
---@return acpchat.RenderState
function M.state(chat)
  chat.render = chat.render or { blocks = {}, order = {} }
  return chat.render
end

---@param buf integer
---@param b acpchat.BlockMark
---@return integer row
function M.start(buf, b)
  return api.nvim_buf_get_extmark_by_id(buf, M.ns, b.mark, {})[1]
end

--- First and last row (0-based, inclusive) of block `b`.
---@param buf integer
---@param rs acpchat.RenderState
---@param b acpchat.BlockMark
---@return integer first
---@return integer last
function M.range(buf, rs, b)
  local start = M.start(buf, b)
  local nxt = rs.order[b.index + 1]
  local last
  if nxt then
    local n = rs.blocks[nxt]
    last = M.start(buf, n) - 1 - n.sep
  else
    last = api.nvim_buf_line_count(buf) - 1
  end
  return start, math.max(start, last)
end

--- The block under a row of the transcript (for gf, gd, gt on tool calls).
---@param chat acpchat.Chat
---@param row integer
---@return acpchat.BlockMark?
function M.at(chat, row)
  local rs = M.state(chat)
  local found
  for _, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    if M.start(chat.buf, b) > row then
      break
    end
    found = b
  end
  return found
end

--- The block under a row, with its id and the row's offset in it (for the media keys).
---@return string? id, table? block, integer? offset
---@param chat acpchat.Chat
---@param row integer
function M.at_row(chat, row)
  local rs = M.state(chat)
  local found_id, found, start
  for _, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    local s = M.start(chat.buf, b)
    if s > row then
      break
    end
    found_id, found, start = id, b, s
  end
  if not found then
    return nil
  end
  return found_id, found, row - start
end

--- Start rows (0-based) of the turn headers, for ]] and [[.
---@param chat acpchat.Chat
function M.turn_rows(chat)
  local rs = M.state(chat)
  local rows = {}
  for _, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    if b.type == "turn" then
      rows[#rows + 1] = M.start(chat.buf, b)
    end
  end
  return rows
end

--- Fold rows first..last (0-based) in `win`: manual folds, since 'foldexpr' is not
--- re-evaluated for windows that are not current when the plugin changes the buffer.
---@param win integer
---@param first integer
---@param last integer
function M.fold(win, first, last)
  if last < first then
    return
  end
  api.nvim_win_call(win, function()
    vim.cmd(string.format("silent! %d,%dfold", first + 1, last + 1))
  end)
end

--- A window newly showing the transcript gets the folds of every finished thought.
---@param chat acpchat.Chat
---@param win integer
function M.refold(chat, win)
  local rs = M.state(chat)
  for i, id in ipairs(rs.order) do
    local b = rs.blocks[id]
    if b.type == "thought" and rs.order[i + 1] then
      local first, last = M.range(chat.buf, rs, b)
      M.fold(win, first, last)
    end
  end
end

return M
