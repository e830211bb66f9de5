-- Questions never catch your typing. A question (permission, review, sign-in, form) that arrives
-- while the user types (Insert, Replace or Terminal mode with a key in the last `pause_ms`, or the
-- command line) waits: its chat's winbar and the end of its transcript say at once what it asks and the
-- key that answers it. It opens when the user leaves that mode, stops typing for `pause_ms`, or
-- presses the key (keymaps.answer). What the user typed meanwhile went where it was typed; the
-- modules that open questions hold back anything still in the typeahead (permission.lua).
local config = require("acpchat.config")

local api = vim.api
local uv = vim.uv or vim.loop

local M = {}

--- No key for this long and the user is not typing any more.
M.pause_ms = 1500

local ns = api.nvim_create_namespace("acpchat_waiting")
--- When the user last typed a key (uv.now()); 0: never.
local last_key = 0
---@type { key: string, chat: integer, label: string, run: fun() }[]
M.held = {}
local timer

vim.on_key(function()
  last_key = uv.now()
end, ns)

--- Whether a question opened now would catch the user's typing.
function M.typing()
  local mode = api.nvim_get_mode()
  local m = mode.mode:sub(1, 1)
  if m == "c" or mode.blocking then
    return true
  end
  -- Insert, Replace, or typing into a :terminal.
  return (m == "i" or m == "R" or m == "t") and uv.now() - last_key < M.pause_ms
end

local function answer_key()
  local k = config.options.keymaps.answer
  return k and k ~= "" and k or nil
end

--- The held question of `chat` (the first), if any.
---@param chat_id integer
function M.of_chat(chat_id)
  for _, h in ipairs(M.held) do
    if h.chat == chat_id then
      return h
    end
  end
end

--- What the winbar and the transcript say about a held question.
function M.hint(h)
  local k = answer_key()
  return string.format(
    "? %s — %s",
    h.label,
    k and (k .. " or leave Insert mode to answer") or "leave Insert mode to answer"
  )
end

--- The end of the transcript shows the held question (or nothing).
---@param chat acpchat.Chat
function M.decorate(chat)
  if not api.nvim_buf_is_valid(chat.buf) then
    return
  end
  api.nvim_buf_clear_namespace(chat.buf, ns, 0, -1)
  local h = M.of_chat(chat.id)
  if h then
    local last = api.nvim_buf_line_count(chat.buf) - 1
    api.nvim_buf_set_extmark(chat.buf, ns, last, 0, { virt_lines = { { { M.hint(h), "AcpChatAsk" } } } })
  end
end

--- Redraws chat `chat_id`'s winbar and transcript mark (set by layout.lua, which draws them).
M.on_change = function(_) end

local function refresh(chat_id)
  M.on_change(chat_id)
end

local function stop_timer()
  if timer then
    timer:stop()
    timer:close()
    timer = nil
  end
end

--- Open every held question now (in the order they came).
function M.release()
  local list = M.held
  M.held = {}
  stop_timer()
  for _, h in ipairs(list) do
    refresh(h.chat)
  end
  for _, h in ipairs(list) do
    h.run()
  end
end

local function check()
  if #M.held > 0 and not M.typing() then
    M.release()
  end
end

--- Hold question `key` of chat `chat_id` until the user stops typing; `run` opens it.
---@param chat_id integer
function M.hold(key, chat_id, label, run)
  M.held[#M.held + 1] = { key = key, chat = chat_id, label = label, run = run }
  refresh(chat_id)
  if not timer then
    timer = assert(uv.new_timer())
    timer:start(200, 200, vim.schedule_wrap(check))
  end
end

--- Question `key` was withdrawn before it opened.
function M.drop(key)
  for i, h in ipairs(M.held) do
    if h.key == key then
      table.remove(M.held, i)
      refresh(h.chat)
      break
    end
  end
  if #M.held == 0 then
    stop_timer()
  end
end

-- Leaving Insert mode or the command line opens what waits, at once.
api.nvim_create_autocmd("ModeChanged", {
  group = api.nvim_create_augroup("AcpChatWaiting", { clear = true }),
  pattern = { "i*:*", "R*:*", "c*:*", "t*:*" },
  callback = function()
    if #M.held > 0 then
      vim.schedule(check)
    end
  end,
})

return M
