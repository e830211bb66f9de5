-- The chats of this Neovim, as Lua knows them: their buffers, windows and the last status Node
-- sent. Protocol and session state live in Node.

local api = vim.api
local bridge = require("acpchat.host.bridge")

local M = {}

---@type table<integer, table>
M.chats = {}

--- A new chat's id: the bridge keeps the count, so ids stay unique when this module reloads.
---@return integer
function M.new_id()
  return bridge.new_chat_id()
end

---@param id integer
---@return acpchat.Chat?
function M.get(id)
  return M.chats[id]
end

--- Chats shown or hidden in a tab: `chat.tab` is the tab it was last shown in (nil once that
--- tab closed: the chat is hidden, its agent runs, :AcpChatList reaches it); `chat.shown` orders
--- them (the last shown first).
local shown = 0
---@param chat acpchat.Chat
---@param tab integer
function M.mark_shown(chat, tab)
  shown = shown + 1
  chat.tab, chat.shown = tab, shown
end

--- Chats whose windows are in `tab`.
---@param tab integer
---@return acpchat.Chat[]
function M.visible_in(tab)
  local out = {}
  for _, c in pairs(M.chats) do
    for _, b in ipairs({ c.buf, c.prompt_buf }) do
      for _, w in ipairs(vim.fn.win_findbuf(b)) do
        if api.nvim_win_get_tabpage(w) == tab and not vim.tbl_contains(out, c) then
          out[#out + 1] = c
        end
      end
    end
  end
  return out
end

--- The chat of `tab` (default: the current one) last shown, optionally of agent `agent`.
---@param tab integer?
---@param agent string?
---@return acpchat.Chat?
function M.of_tab(tab, agent)
  tab = tab or api.nvim_get_current_tabpage()
  local best
  for _, c in pairs(M.chats) do
    if c.tab == tab and (agent == nil or c.agent == agent) and (not best or (c.shown or 0) > (best.shown or 0)) then
      best = c
    end
  end
  return best
end

--- The chat that asked the open question `key`, if it still waits. The questions (ask/, a
--- layer above this one) set it when they load; until then no question is open.
---@type fun(key: string): integer?
function M.question_chat(_)
  return nil
end

--- The chat that owns the review (or diff) shown in the current tab, if it is one.
---@return acpchat.Chat?
function M.owner_of_tab()
  local id = vim.t.acpchat_chat
  if not id then
    -- A review's buffers are named acpchat://review/<question key>/... (review.lua).
    for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
      local key = api.nvim_buf_get_name(api.nvim_win_get_buf(w)):match("^acpchat://review/([^/]+)/")
      local chat = key and M.question_chat(key)
      if chat then
        id = chat
      end
    end
  end
  return id and M.chats[id]
end

--- Who asks a question, as every question's prompt starts: "[claude · chat 2]", with the tab
--- when the chat is not shown in this one ("[claude · chat 2 · tab 3]", or "· hidden").
---@param chat_id integer
---@return string
function M.who(chat_id)
  local chat = M.chats[chat_id]
  if not chat then
    return string.format("[chat %d]", chat_id)
  end
  local where = ""
  if not vim.tbl_contains(M.visible_in(api.nvim_get_current_tabpage()), chat) then
    local w = vim.fn.win_findbuf(chat.buf)[1] or vim.fn.win_findbuf(chat.prompt_buf)[1]
    where = w and (" · tab " .. api.nvim_tabpage_get_number(api.nvim_win_get_tabpage(w))) or " · hidden"
  end
  return string.format("[%s · chat %d%s]", chat.agent, chat.id, where)
end

--- The chat of the chat buffer in use, else the one shown in this tab, else the one that owns
--- this tab's review, else this tab's chat last shown.
---@return acpchat.Chat?
function M.current()
  local b = api.nvim_get_current_buf()
  for _, c in pairs(M.chats) do
    if c.buf == b or c.prompt_buf == b then
      return c
    end
  end
  local tab = api.nvim_get_current_tabpage()
  local visible = M.visible_in(tab)
  table.sort(visible, function(x, y)
    return (x.shown or 0) > (y.shown or 0)
  end)
  return visible[1] or M.owner_of_tab() or M.of_tab(tab)
end

--- The current chat, or nil after telling the user there is none.
---@return acpchat.Chat?
function M.need()
  local c = M.current()
  if not c then
    vim.schedule(function()
      vim.notify("acpchat: no chat in this tab (open one with :AcpChat)", vim.log.levels.WARN, { title = "acpchat" })
    end)
  end
  return c
end

--- The chat's one visible state (starting, signing_in, ready, running, cancelling, crashed, closed).
---@param chat acpchat.Chat
---@return string
function M.state(chat)
  return chat.status and chat.status.state or "starting"
end

return M
