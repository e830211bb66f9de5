-- The feature modules' Lua side, listed in one place (src/session/features/index.ts is Node's):
-- the text of each feature's blocks. Which features are on is Node's to decide, from the option
-- `unstable` that Lua sends with each call (`option`); only fork.lua asks it too, to refuse at once.
--   plans.lua             a plan by id (block plan_doc)
--   subagents.lua         a subagent's block (subagent): header and nested transcript;
--                         transcript/subagent_view.lua folds it and opens its own view (gs)
--   session_messages.lua  a message between sessions (session_message)
--   app/fork.lua          :AcpChatFork
--   (renaming a session is the last entry of :AcpChatSessions' picker, app/sessions.lua)
local config = require("acpchat.config")
local plans = require("acpchat.transcript.features.plans")
local subagents = require("acpchat.transcript.features.subagents")
local session_messages = require("acpchat.transcript.features.session_messages")

local M = {}

---@class acpchat.Feature
---@field name string as Node names it
---@field blocks table<string, fun(v: table, text: table): acpchat.Builder> its blocks' text, by type

---@type acpchat.Feature[]
M.list = {
  { name = "plans", blocks = { plan_doc = plans.plan_doc } },
  { name = "subagents", blocks = { subagent = subagents.subagent } },
  { name = "session-messages", blocks = { session_message = session_messages.session_message } },
}

--- Block type -> the text builder of the feature that owns it.
local builders = {}
for _, f in ipairs(M.list) do
  for t, fn in pairs(f.blocks) do
    builders[t] = fn
  end
end

--- The option as Node's calls take it (nil when off): Node gates its feature modules on it.
---@return boolean?
function M.option()
  return config.options.unstable or nil
end

--- Whether `type` is a block of a feature module.
---@param type string
function M.owns(type)
  return builders[type] ~= nil
end

--- Lines and highlights of a feature's block; `text` is text.lua (handed in: nothing requires back).
function M.block(v, text)
  local b = builders[v.type](v, text)
  return b.lines, b.hls
end

return M
