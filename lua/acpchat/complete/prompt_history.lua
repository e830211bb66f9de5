-- Prompt history: the prompts sent from this project's chats (this Neovim's and earlier ones),
-- newest first, recalled into the prompt buffer with keymaps.history_prev / history_next. Kept in
-- stdpath("state")/acpchat/prompts.json by folder, at most M.max per folder.
local api = vim.api

local M = {}

M.max = 100

function M.file()
  return vim.fn.stdpath("state") .. "/acpchat/prompts.json"
end

local function read()
  local f = io.open(M.file(), "r")
  if not f then
    return {}
  end
  local ok, data = pcall(vim.json.decode, f:read("*a"))
  f:close()
  return ok and type(data) == "table" and data or {}
end

--- The folder's prompts, newest first.
---@param cwd string
function M.list(cwd)
  local l = read()[cwd]
  return type(l) == "table" and l or {}
end

--- `text` was sent from a chat in `cwd`.
---@param cwd string
function M.add(cwd, text)
  local all = read()
  local l = { text }
  for _, t in ipairs(type(all[cwd]) == "table" and all[cwd] or {}) do
    if t ~= text and #l < M.max then
      l[#l + 1] = t
    end
  end
  all[cwd] = l
  vim.fn.mkdir(vim.fn.fnamemodify(M.file(), ":h"), "p")
  local f = io.open(M.file(), "w")
  if f then
    f:write(vim.json.encode(all))
    f:close()
  end
end

--- Step `dir` (1: older, -1: newer) through the history in chat's prompt buffer; the text being
--- typed is kept and comes back after the newest.
---@param chat acpchat.Chat
function M.step(chat, dir)
  local buf = chat.prompt_buf
  local list = M.list(chat.cwd)
  local at = chat.history_at or 0
  if at == 0 then
    chat.history_draft = api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  local next_at = math.max(0, math.min(#list, at + dir))
  if next_at == at then
    return
  end
  chat.history_at = next_at
  local lines = next_at == 0 and chat.history_draft or vim.split(list[next_at], "\n", { plain = true })
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local win = vim.fn.win_findbuf(buf)[1]
  if win then
    pcall(api.nvim_win_set_cursor, win, { #lines, #lines[#lines] })
  end
end

--- A prompt was sent: the next step starts again from the newest.
---@param chat acpchat.Chat
function M.sent(chat, text)
  chat.history_at, chat.history_draft = 0, nil
  M.add(chat.cwd, text)
end

return M
