-- acp-chat.nvim: chat with coding agents (Agent Client Protocol) inside Neovim.
-- Public Lua API; the :AcpChat* commands call these. None of them waits on the agent.
local config = require("acpchat.config")
local util = require("acpchat.util")
-- The rest is required where it is first used, not for a circle: setup() runs in the user's
-- startup, and loading the chat machinery there would slow every Neovim start.

local M = {}

--- Optional: override defaults. Every problem is reported in one message; the valid part of
--- `opts` is kept and the rest falls back to the defaults.
function M.setup(opts)
  local ok, err = config.set(opts)
  if not ok then
    vim.notify(err or "acpchat: setup() failed", vim.log.levels.ERROR, { title = "acpchat" })
  end
  require("acpchat.highlights").setup()
  return ok
end

local function chats()
  return require("acpchat.app.chats")
end
local function registry()
  return require("acpchat.chat.registry")
end

--- Show `chat` here and land in its prompt, typing.
---@param chat acpchat.Chat
local function show(chat)
  require("acpchat.chat.layout").show(chat)
  vim.cmd("startinsert!")
  return chat
end

--- :AcpChat[!] [agent]: focus this tab's chat (of `agent`, when named), or start one. With bang
--- always a new chat: of `agent`, else of this tab's chat's agent, else the default agent. In a
--- review tab, the chat that owns the review (in its own tab when it is shown there).
function M.open(agent, new)
  local reg = registry()
  local cur = reg.current()
  if new then
    local chat = chats().create(agent or (cur and cur.agent))
    return chat and show(chat)
  end
  local owner = reg.owner_of_tab()
  if owner and cur == owner and (agent == nil or agent == owner.agent) then
    if owner.tab and owner.tab ~= vim.api.nvim_get_current_tabpage() and vim.api.nvim_tabpage_is_valid(owner.tab) then
      vim.api.nvim_set_current_tabpage(owner.tab)
    end
  end
  local target = cur
  if agent and cur and cur.agent ~= agent then
    target = reg.of_tab(nil, agent)
  end
  if target then
    show(target)
    -- A chat whose agent died comes back: started again, its session continued if possible.
    if reg.state(target) == "crashed" then
      chats().restart(target)
    end
    return target
  end
  local chat = chats().create(agent)
  return chat and show(chat)
end

--- :AcpChatSend {text}: send (or queue) a prompt; starts a chat when there is none.
function M.send(text)
  local c = registry().current() or M.open(nil, false)
  if c then
    chats().send(c, text)
  end
end

function M.cancel()
  local c = registry().need()
  if not c then
    return
  end
  local s = c.status or {}
  if s.state ~= "running" and s.state ~= "cancelling" and #(s.queued or {}) == 0 then
    -- Said, not silently ignored.
    return util.notify(
      string.format(
        "acpchat: nothing to cancel (%s is %s)",
        c.agent,
        require("acpchat.transcript.status_text").state_text(s)
      )
    )
  end
  chats().cancel(c)
end

--- :AcpChatFork: a new chat that starts from a fork of this chat's session (session/fork, the
--- fork feature; needs `unstable = true` and an agent that advertises sessionCapabilities.fork).
function M.fork()
  require("acpchat.app.fork").fork()
end

function M.close()
  local c = registry().need()
  if c then
    chats().close(c)
  end
end

--- Hide the chat, or show it again in the layout it had.
function M.toggle()
  local layout = require("acpchat.chat.layout")
  local c = registry().current()
  if not c then
    return M.open(nil, false)
  end
  if layout.visible(c) then
    return layout.hide(c)
  end
  show(c)
end

--- How a chat reads in :AcpChatList: agent, title, state and where it is.
function M.describe(c)
  local api = vim.api
  local s = c.status or {}
  local where = "hidden"
  for _, b in ipairs({ c.buf, c.prompt_buf }) do
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      where = "tab " .. api.nvim_tabpage_get_number(api.nvim_win_get_tabpage(w))
    end
  end
  if where == "hidden" and c.tab and api.nvim_tabpage_is_valid(c.tab) then
    where = "hidden in tab " .. api.nvim_tabpage_get_number(c.tab)
  end
  local title = require("acpchat.transcript.text").flat(
    s.title and s.title ~= "" and vim.trim((s.title:gsub("%s+", " "))) or "untitled",
    60
  )
  local attention = require("acpchat.chat.attention")
  local mark = attention.waiting(c.id) > 0 and "? waiting on you · "
    or attention.unseen[c.id] and "● ended unseen · "
    or ""
  return string.format(
    "%schat %d · %s · %s · %s · %s",
    mark,
    c.id,
    c.agent,
    title,
    require("acpchat.transcript.status_text").state_text(s),
    where
  )
end

--- :AcpChatList: every live chat (shown, hidden, or whose tab closed); the one picked is shown
--- in this tab, taken from wherever it was.
function M.list()
  local all = vim.tbl_values(registry().chats)
  if #all == 0 then
    return util.notify("acpchat: no chats (open one with :AcpChat)")
  end
  -- Chats waiting on a question first, then those whose turn ended unseen (attention.lua).
  local attention = require("acpchat.chat.attention")
  local function rank(c)
    return attention.waiting(c.id) > 0 and 0 or attention.unseen[c.id] and 1 or 2
  end
  table.sort(all, function(a, b)
    if rank(a) ~= rank(b) then
      return rank(a) < rank(b)
    end
    return a.id < b.id
  end)
  vim.ui.select(all, { prompt = "Chats:", kind = "acpchat_chats", format_item = M.describe }, function(c)
    if c and registry().chats[c.id] then
      show(c)
    end
  end)
end

--- :[range]AcpChatAdd [file]: add context to the next prompt.
function M.add(opts)
  local c = registry().need()
  if not c then
    return
  end
  -- Images and audio (and the clipboard's image: `+`, or `*` for the primary selection) are
  -- checked by Node: inside the session's folder, under media.max_bytes (lua/acpchat/chat/media.lua).
  if opts.file == "+" or opts.file == "*" then
    return require("acpchat.chat.media").add_clipboard(c, opts.file == "*")
  end
  local item
  if opts.file and opts.file ~= "" and require("acpchat.chat.media").is_media(opts.file) then
    return require("acpchat.chat.media").add_file(c, vim.fn.fnamemodify(opts.file, ":p"))
  elseif opts.file and opts.file ~= "" then
    item = { type = "file", path = vim.fn.fnamemodify(opts.file, ":p") }
  else
    local buf = vim.api.nvim_get_current_buf()
    local path = vim.api.nvim_buf_get_name(buf)
    if path == "" or path:match("^acpchat://") then
      return util.notify("acpchat: nothing to add from this buffer", vim.log.levels.WARN)
    end
    if opts.range and opts.range > 0 then
      local lines = vim.api.nvim_buf_get_lines(buf, opts.line1 - 1, opts.line2, false)
      item = {
        type = "range",
        path = path,
        start = opts.line1,
        ["end"] = opts.line2,
        text = table.concat(lines, "\n"),
        filetype = vim.bo[buf].filetype,
      }
    else
      item = { type = "file", path = path }
    end
  end
  local prompt = require("acpchat.chat.prompt")
  -- The same file or range twice is sent once.
  for _, it in ipairs(c.context) do
    if it.type == item.type and it.path == item.path and it.start == item.start and it["end"] == item["end"] then
      return util.notify("acpchat: " .. prompt.context_label(item) .. " is already in the next prompt")
    end
  end
  table.insert(c.context, item)
  prompt.show_context(c)
  util.notify("acpchat: added " .. prompt.context_label(item) .. " to the next prompt")
end

--- :AcpChatContext: the context waiting for the next prompt; the one picked is removed (or
--- all of it).
function M.context()
  local c = registry().need()
  if not c then
    return
  end
  local prompt = require("acpchat.chat.prompt")
  if #c.context == 0 then
    return util.notify("acpchat: no context waits for the next prompt")
  end
  local items = {}
  for i, it in ipairs(c.context) do
    items[#items + 1] = { index = i, label = "remove " .. prompt.context_label(it) }
  end
  items[#items + 1] = { all = true, label = "remove all" }
  vim.ui.select(items, {
    prompt = "Context for the next prompt (pick one to remove it):",
    kind = "acpchat_context",
    format_item = function(it)
      return it.label
    end,
  }, function(it)
    if not it then
      return
    end
    c.context = it.all and {} or vim.tbl_filter(function(x)
      return x ~= c.context[it.index]
    end, c.context)
    prompt.show_context(c)
  end)
end

--- For statuslines: this tab's chat, and counts over every chat (nil without any chat).
--- `state` is one of starting, signing_in, ready, running, cancelling, crashed, closed; `reason`
--- says why it crashed. `running`, `questions`, `unseen`: chats running, questions waiting for
--- you, turns ended while you were away (|acpchat-attention|); kept in Lua, no round trip. Only
--- the counts when this tab has no chat.
function M.status()
  if next(registry().chats) == nil then
    return nil
  end
  local counts = require("acpchat.chat.attention").counts()
  local c = registry().current()
  local s = c and c.status
  if not c or not s then
    return counts
  end
  return {
    running = counts.running,
    questions = counts.questions,
    unseen = counts.unseen,
    id = c.id,
    agent = s.agent or c.agent,
    title = s.title,
    state = s.state,
    reason = s.reason,
    queued = s.queued and #s.queued or 0,
    mode = s.mode,
    model = s.model,
    usage = s.usage,
    -- The last turn's tokens (PromptResponse.usage, the usage feature), when the agent sends them.
    turn_usage = s.turn_usage,
  }
end

--- Stop every agent (VimLeavePre). The host also stops them when Neovim goes away.
function M.shutdown()
  if next(registry().chats) == nil then
    return
  end
  require("acpchat.host.bridge").call("shutdown", {})
end

return M
