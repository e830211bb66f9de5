-- How a question waits. A question (permission, review, sign-in, form) is answered only by
-- choosing one of its options; until then it waits, shown in its chat's winbar and as a block at
-- the end of its transcript (what it asks, its choices, the key that opens it).
--
-- It opens by itself only when the user is not typing: never on the command line, never in
-- Insert, Replace or Terminal mode once they typed there, and only after `pause_ms` without a key
-- (so never mid-word, and keys meant for the editor never land in its list). The answer key (keymaps.answer) or
-- :AcpChatAnswer opens the oldest waiting question at once. Closing its list without choosing
-- (Esc, q, an empty answer) is never an answer: the question is "parked", still shown, and opens
-- again only when the user asks for it.
local config = require("acpchat.config")
local text = require("acpchat.transcript.text")

local api = vim.api
local uv = vim.uv or vim.loop

local M = {}

--- No key for this long and the user is not typing any more.
M.pause_ms = 1500

local ns = api.nvim_create_namespace("acpchat_waiting")
--- When the user last typed a key (uv.now()); 0: never.
local last_key = 0
---@class acpchat.Waiting
---@field key string
---@field chat integer
---@field label string what it asks, in a few words
---@field choices string[] its options as the list shows them
---@field run fun() opens it
---@field parked boolean? its list was closed without an answer: opens only when asked for
---@field tab boolean? a review: it opens in a tab of its own, not a list
---@type acpchat.Waiting[]
M.held = {}
local timer
--- Keys typed so far, and how many when the user last entered Insert, Replace or Terminal mode.
local keys, entered = 0, 0

vim.on_key(function(_, typed)
  -- Only keys the user typed: the plugin's own `:normal!` (a subagent block's folds redrawn)
  -- comes through here too, with nothing typed, and is not the user typing.
  if typed == "" then
    return
  end
  last_key = uv.now()
  keys = keys + 1
end, ns)

--- Whether a question opened now would catch the user's typing: on the command line; in
--- Insert, Replace or Terminal mode once they pressed a key there (however long ago: their next
--- key would land in the list); else a key in the last `pause_ms`. Put into Insert mode without
--- typing (a chat just opened, back from a review) is not typing.
function M.typing()
  local mode = api.nvim_get_mode()
  local m = mode.mode:sub(1, 1)
  if m == "c" or mode.blocking then
    return true
  end
  if (m == "i" or m == "R" or m == "t") and keys > entered then
    return true
  end
  return uv.now() - last_key < M.pause_ms
end

local function answer_key()
  local k = config.options.keymaps.answer
  return k and k ~= "" and k or nil
end

--- How the user opens a waiting question, in a few words.
local function opener()
  local k = answer_key()
  return k and (k .. " or :AcpChatAnswer") or ":AcpChatAnswer"
end

--- The waiting questions of `chat` (oldest first).
---@param chat_id integer
function M.of_chat_all(chat_id)
  return vim.tbl_filter(function(h)
    return h.chat == chat_id
  end, M.held)
end

--- The oldest waiting question of `chat`, if any.
---@param chat_id integer
function M.of_chat(chat_id)
  return M.of_chat_all(chat_id)[1]
end

--- The winbar's hint: the key first, so that a narrow window still shows how to answer.
---@param h acpchat.Waiting
function M.hint(h)
  local k = answer_key()
  return string.format("? %s answers: %s", k or ":AcpChatAnswer", h.label)
end

--- `s` cut into lines of at most `width` display cells, the first prefixed `first`, the rest `rest`.
local function wrap(s, width, first, rest)
  local out = {}
  local prefix = first
  s = text.flat(s, 2000)
  while true do
    local room = math.max(10, width - vim.fn.strdisplaywidth(prefix))
    if vim.fn.strdisplaywidth(s) <= room then
      out[#out + 1] = prefix .. s
      return out
    end
    -- Cut at the last space that fits, else in the middle of a word.
    local cut = vim.fn.strcharpart(s, 0, room)
    local space = cut:match(".*() ")
    if space and space > room / 3 then
      cut = cut:sub(1, space - 1)
    end
    out[#out + 1] = prefix .. cut
    s = vim.trim(s:sub(#cut + 1))
    prefix = rest
    if s == "" then
      return out
    end
  end
end

--- The question block: what it asks, its choices, and what each key does. Lines of at most `width`.
---@param h acpchat.Waiting
---@param width integer
---@return string[]
function M.block(h, width)
  local lines = wrap("The agent asks: " .. h.label, width, "? ", "  ")
  for i, c in ipairs(h.choices or {}) do
    vim.list_extend(lines, wrap(c, width, string.format("  %d. ", i), "     "))
  end
  local what = h.tab and "the review" or "the list"
  local how = h.parked
      and (opener() .. ": open " .. what .. " again. You closed it without choosing, so it waits for you.")
    or (opener() .. ": open " .. what .. " now. It opens by itself when you are out of Insert mode and stop typing.")
  vim.list_extend(lines, wrap(how, width, "  ", "  "))
  local keys_text = h.tab
      and "In its tab: ga/gA accept, gr/gR reject, ZZ finishes with what you accepted, ZQ rejects all."
    or "In the list: pick a choice to answer; Esc or q closes it and it keeps waiting."
  vim.list_extend(lines, wrap(keys_text, width, "  ", "  "))
  return lines
end

--- The end of the transcript shows the chat's waiting questions (or nothing).
---@param chat acpchat.Chat
function M.decorate(chat)
  if not api.nvim_buf_is_valid(chat.buf) then
    return
  end
  api.nvim_buf_clear_namespace(chat.buf, ns, 0, -1)
  local list = M.of_chat_all(chat.id)
  if #list == 0 then
    return
  end
  local win = vim.fn.win_findbuf(chat.buf)[1]
  local width = win and api.nvim_win_get_width(win) - 2 or 78
  local virt = {}
  for _, h in ipairs(list) do
    for _, l in ipairs(M.block(h, width)) do
      virt[#virt + 1] = { { l, "AcpChatAsk" } }
    end
  end
  local last = api.nvim_buf_line_count(chat.buf) - 1
  api.nvim_buf_set_extmark(chat.buf, ns, last, 0, { virt_lines = virt })
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

--- Take `h` out of the list and open it.
local function open(h)
  for i, x in ipairs(M.held) do
    if x == h then
      table.remove(M.held, i)
      break
    end
  end
  refresh(h.chat)
  h.run()
end

--- Open every question that waits for the user to stop typing (in the order they came); parked
--- ones stay.
function M.release()
  local list = vim.tbl_filter(function(h)
    return not h.parked
  end, M.held)
  for _, h in ipairs(list) do
    open(h)
  end
  if #vim.tbl_filter(function(h)
    return not h.parked
  end, M.held) == 0 then
    stop_timer()
  end
end

--- The answer key and :AcpChatAnswer: open the oldest waiting question (of `chat_id` first,
--- when given). False when none waits.
---@param chat_id integer?
function M.answer(chat_id)
  local h = chat_id and M.of_chat(chat_id) or M.held[1]
  h = h or M.held[1]
  if not h then
    return false
  end
  open(h)
  return true
end

local function check()
  if not M.typing() then
    M.release()
  end
end

local function start_timer()
  if not timer then
    timer = assert(uv.new_timer())
    timer:start(200, 200, vim.schedule_wrap(check))
  end
end

--- Question `key` of chat `chat_id` waits; `run` opens it. `opts.parked`: it opens only when
--- asked for (its list was closed without an answer); else it opens when the user stops typing.
---@param opts { choices: string[]?, parked: boolean? }?
function M.hold(key, chat_id, label, run, opts)
  opts = opts or {}
  M.drop(key, true)
  M.held[#M.held + 1] = {
    key = key,
    chat = chat_id,
    label = label,
    run = run,
    choices = opts.choices or {},
    parked = opts.parked,
    tab = opts.tab,
  }
  refresh(chat_id)
  if not opts.parked then
    start_timer()
  end
end

--- The user answered a question: the keys they pressed went to its list, not to typing, so a
--- question that answer brings (the review "Show the diff first" opens) opens at once.
function M.answered()
  entered, last_key = keys, 0
end

--- Whether question `key` waits.
function M.holds(key)
  for _, h in ipairs(M.held) do
    if h.key == key then
      return true
    end
  end
  return false
end

--- Question `key` was answered or withdrawn: it waits no more.
function M.drop(key, quiet)
  for i, h in ipairs(M.held) do
    if h.key == key then
      table.remove(M.held, i)
      if not quiet then
        refresh(h.chat)
      end
      break
    end
  end
  if #M.held == 0 then
    stop_timer()
  end
end

local group = api.nvim_create_augroup("AcpChatWaiting", { clear = true })
api.nvim_create_autocmd("ModeChanged", {
  group = group,
  pattern = { "*:i*", "*:R*", "*:t*" },
  callback = function()
    -- Counting the key that entered it (on_key runs before the key is handled).
    entered = keys
  end,
})

-- Leaving Insert mode or the command line: what waits opens once the user stops typing.
api.nvim_create_autocmd("ModeChanged", {
  group = group,
  pattern = { "i*:*", "R*:*", "c*:*", "t*:*" },
  callback = function()
    if #M.held > 0 then
      vim.schedule(check)
    end
  end,
})

return M
