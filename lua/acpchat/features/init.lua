-- The feature modules' Lua side, listed in one place (src/session/features/index.ts is Node's):
-- the text of each feature's blocks, and which features are on. Node decides what is advertised
-- and handled, from the option `unstable` sent with each call; Lua asks `on` before a command
-- of an unstable feature, to say at once how to turn it on.
--   plans.lua             a plan by id (block plan_doc)
--   subagents.lua         a subagent's block (subagent): header and nested transcript;
--                         subagent_view.lua folds it and opens its own view (gs)
--   session_messages.lua  a message between sessions (session_message)
--   fork.lua              :AcpChatFork
--   (renaming a session is the last entry of :AcpChatSessions' picker, chat/sessions.lua)
local config = require("acpchat.config")
local plans = require("acpchat.features.plans")
local subagents = require("acpchat.features.subagents")
local session_messages = require("acpchat.features.session_messages")

local M = {}

---@class acpchat.Feature
---@field name string
---@field unstable boolean part of the SDK's unstable schema: on only with the option `unstable`
---@field blocks? table<string, fun(v: table, text: table): acpchat.Builder> its blocks' text, by type

---@type acpchat.Feature[]
M.list = {
  { name = "plans", unstable = true, blocks = { plan_doc = plans.plan_doc } },
  { name = "subagents", unstable = true, blocks = { subagent = subagents.subagent } },
  { name = "session-messages", unstable = true, blocks = { session_message = session_messages.session_message } },
  { name = "fork", unstable = true },
  { name = "title", unstable = true },
}

--- Block type -> the text builder of the feature that owns it.
local builders = {}
for _, f in ipairs(M.list) do
  for t, fn in pairs(f.blocks or {}) do
    builders[t] = fn
  end
end

--- Whether the feature `name` is on (an unstable one only with the option `unstable`).
---@param name string
---@return boolean
function M.on(name)
  for _, f in ipairs(M.list) do
    if f.name == name then
      return not f.unstable or config.options.unstable == true
    end
  end
  return false
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
