-- The questions Node asked that wait for the user's answer (see ask.lua for who asks them).
-- An answer goes back once with the `reply` call; a question Node withdrew is forgotten, and a
-- late answer to it is dropped.
local bridge = require("acpchat.bridge")

local M = {}

---@type table<string, { chat: integer, kind: string }>
M.open = {}

function M.track(key, chat_id, kind)
  M.open[key] = { chat = chat_id, kind = kind }
end

--- Whether `key` still waits for its answer.
function M.is_open(key)
  return M.open[key] ~= nil
end

--- Answer a question (value nil: dismissed). Only the first answer counts.
function M.reply(key, value)
  if M.open[key] == nil then
    return
  end
  M.open[key] = nil
  bridge.call("reply", { key = key, value = value })
end

function M.forget(key)
  M.open[key] = nil
end

return M
