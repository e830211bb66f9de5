-- When a chat needs the user (|acpchat-attention|): a question asked, a turn ended, an error.
-- Each fires `User AcpChatAttention` (data: chat, agent, kind) and, with `notify.enabled`, a
-- desktop or terminal notification while Neovim is not focused or the chat is not shown in
-- this tab. The counts for statuslines (status()) are kept here from Node's events, so reading
-- them costs no round trip: questions by key from the `ask`/`dismiss` events and the `reply`
-- call (the dispatcher's level, whatever module shows a question), turns ended while unseen.
local registry = require("acpchat.chat.registry")
local config = require("acpchat.config")

local api = vim.api
local M = {}

--- Open questions: key -> chat id.
---@type table<string, integer>
M.questions = {}
--- Chats whose last turn ended while the user was away: chat id -> true.
---@type table<integer, boolean>
M.unseen = {}
--- Whether Neovim has the focus (FocusLost / FocusGained; assumed until told otherwise).
M.focused = true

--- Whether the chat is shown in the current tab.
---@param chat acpchat.Chat
function M.visible(chat)
  return vim.tbl_contains(registry.visible_in(api.nvim_get_current_tabpage()), chat)
end

--- Whether the user would see it now: Neovim focused and the chat in this tab.
local function seen_now(chat)
  return M.focused and M.visible(chat)
end

--- A notification outside Neovim: an OSC 777 and an OSC 9 sequence to the terminal, or the
--- user's command (never through a shell).
function M.notify_out(title, body)
  local o = config.options.notify or {}
  if o.method == "command" then
    local cmd = vim.list_extend(vim.list_slice(o.command or {}), { title, body })
    if #cmd > 2 and vim.fn.executable(cmd[1]) == 1 then
      pcall(vim.system, cmd, { detach = true })
    end
    return
  end
  -- Control characters would end the sequence early (or start another): dropped.
  local function clean(s)
    return (s:gsub("[%c;]", " "))
  end
  local seq =
    string.format("\027]777;notify;%s;%s\007\027]9;%s: %s\007", clean(title), clean(body), clean(title), clean(body))
  if vim.env.TMUX then
    -- tmux passes a sequence on to the terminal when wrapped (and `allow-passthrough` is on).
    seq = "\027Ptmux;" .. seq:gsub("\027", "\027\027") .. "\027\\"
  end
  if api.nvim_ui_send then
    pcall(api.nvim_ui_send, seq)
  else
    -- Neovim 0.10/0.11: the server's stderr is the terminal the TUI draws on.
    pcall(api.nvim_chan_send, 2, seq)
  end
end

local words = { question = "asks you something", turn_end = "finished its turn", error = "stopped with an error" }

--- Fire the autocommand, and notify when the user is away and wants to know.
---@param chat_id integer
---@param kind "question"|"turn_end"|"error"
function M.fire(chat_id, kind)
  local chat = registry.get(chat_id)
  if not chat then
    return
  end
  local away = not seen_now(chat)
  vim.schedule(function()
    api.nvim_exec_autocmds("User", {
      pattern = "AcpChatAttention",
      data = { chat = chat_id, agent = chat.agent, kind = kind },
      modeline = false,
    })
    local o = config.options.notify or {}
    if o.enabled and away and vim.tbl_contains(o.kinds or {}, kind) then
      M.notify_out("acp-chat.nvim", string.format("%s (chat %d) %s", chat.agent or "the agent", chat_id, words[kind]))
    end
  end)
end

---@param chat_id integer
---@param key string
function M.asked(chat_id, key)
  M.questions[key] = chat_id
  M.fire(chat_id, "question")
end

---@param key string
function M.answered(key)
  M.questions[key] = nil
end

---@param chat acpchat.Chat
function M.turn_ended(chat)
  if not seen_now(chat) then
    M.unseen[chat.id] = true
  end
  M.fire(chat.id, "turn_end")
end

---@param chat acpchat.Chat
function M.errored(chat)
  M.fire(chat.id, "error")
end

--- The user looked: chats shown in this tab are seen.
function M.look()
  if not M.focused then
    return
  end
  for id in pairs(M.unseen) do
    local chat = registry.get(id)
    if not chat or M.visible(chat) then
      M.unseen[id] = nil
    end
  end
end

--- Questions waiting of one chat (or of all).
---@param chat_id integer?
function M.waiting(chat_id)
  local n = 0
  for _, id in pairs(M.questions) do
    if registry.get(id) and (chat_id == nil or id == chat_id) then
      n = n + 1
    end
  end
  return n
end

--- The counts for statuslines: chats running, questions waiting, turns ended unseen.
function M.counts()
  local running, unseen = 0, 0
  for id, chat in pairs(registry.chats) do
    local s = registry.state(chat)
    if s == "running" or s == "cancelling" then
      running = running + 1
    end
    if M.unseen[id] then
      unseen = unseen + 1
    end
  end
  return { running = running, questions = M.waiting(), unseen = unseen }
end

--- The host is gone: its questions with it.
function M.reset()
  M.questions = {}
end

local group = api.nvim_create_augroup("AcpChatAttention", { clear = true })
api.nvim_create_autocmd("FocusLost", {
  group = group,
  callback = function()
    M.focused = false
  end,
})
api.nvim_create_autocmd("FocusGained", {
  group = group,
  callback = function()
    M.focused = true
    M.look()
  end,
})
api.nvim_create_autocmd({ "BufEnter", "WinEnter", "TabEnter" }, {
  group = group,
  callback = function()
    if next(M.unseen) then
      M.look()
    end
  end,
})

return M
