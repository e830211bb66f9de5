-- What Node's events do in the editor (contract.ts, NodeEvents), and the buffer requests Node
-- may make. Registered into the bridge, which itself depends on none of these modules.
local bridge = require("acpchat.host.bridge")
local registry = require("acpchat.chat.registry")
local prompt = require("acpchat.chat.prompt")
local util = require("acpchat.util")
local questions = require("acpchat.ask.questions")
local layout = require("acpchat.chat.layout")
local attention = require("acpchat.chat.attention")
-- Not at the top, and not for a circle: the modules an event hands over to load with their
-- first event, so opening a chat loads only what it draws first (the editor never blocks).

local M = {}

local handlers = {
  ---@param p acpchat.event.Render
  render = function(p)
    require("acpchat.chat.render").apply(p.chat, p.ops)
  end,
  ---@param p acpchat.event.Ask
  ask = function(p)
    -- Counted here, before any module shows it: the counts hold whoever asks and how. A
    -- take-back review is one the user opened (gd, :AcpChatReview): not the agent waiting.
    local q = type(p.question) == "table" and p.question or {}
    if not (p.kind == "review" and q.reason == "changes") then
      attention.asked(p.chat, p.key)
    end
    require("acpchat.ask").ask(p.chat, p.key, p.kind, p.question)
  end,
  ---@param p acpchat.event.AskPart
  ask_part = function(p)
    require("acpchat.ask").part(p.key, p.field, p.text)
  end,
  ---@param p acpchat.event.Dismiss
  dismiss = function(p)
    attention.answered(p.key)
    require("acpchat.ask").dismiss(p.key, p.kind)
  end,
  ---@param p acpchat.event.TakeBack
  take_back = function(p)
    local chat = registry.get(p.chat)
    if chat then
      prompt.take_back(chat, p.prompts)
    end
  end,
  ---@param p acpchat.event.Notify
  notify = function(p)
    util.notify(p.message, p.level)
  end,
  ---@param p acpchat.event.Reload
  reload = function(p)
    require("acpchat.editor.workspace").reload(p.path)
  end,
  ---@param p acpchat.event.EditorQuery
  editor_query = function(p)
    require("acpchat.editor.editor_tools").query(p)
  end,
}

local requests = {
  -- Buffer primitives for the agent's reads and writes (lua/acpchat/editor/workspace.lua).
  ---@param p acpchat.request.BufferState
  ---@return acpchat.response.BufferState
  buffer_state = function(p)
    return require("acpchat.editor.workspace").state(p)
  end,
  ---@param p acpchat.request.BufferApply
  ---@return acpchat.response.BufferApply
  buffer_apply = function(p)
    return require("acpchat.editor.workspace").apply(p)
  end,
  ---@param p acpchat.request.BufferSave
  ---@return acpchat.response.BufferSave
  buffer_save = function(p)
    return require("acpchat.editor.workspace").save(p)
  end,
  ---@param p acpchat.request.BufferReload
  ---@return acpchat.response.BufferReload
  buffer_reload = function(p)
    return require("acpchat.editor.workspace").reload_unmodified(p)
  end,
}

--- The host died: every chat it held shows as crashed, with the way back; prompts it had
--- queued come back into the prompt buffer, and its open questions close.
local function host_exited(why)
  attention.reset()
  for key, q in pairs(questions.open) do
    require("acpchat.ask").dismiss(key, q.kind)
  end
  for _, chat in pairs(registry.chats) do
    if chat.generation == bridge.generation then
      local queued = chat.status and chat.status.queued or {}
      if #queued > 0 then
        prompt.take_back(chat, queued)
      end
      chat.status = vim.tbl_extend("force", chat.status or {}, { state = "crashed", reason = why, queued = {} })
      layout.refresh_winbar(chat)
    end
  end
  if next(registry.chats) then
    util.notify("acpchat: " .. why .. " (:AcpChat starts your chat again)", vim.log.levels.ERROR)
  end
end

function M.register()
  for name, fn in pairs(handlers) do
    bridge.handlers[name] = fn
  end
  for name, fn in pairs(requests) do
    bridge.requests[name] = fn
  end
  bridge.on_exit = host_exited
  bridge.on_call = function(method, params)
    if method == "reply" and params then
      attention.answered(params.key)
    end
  end
end

return M
