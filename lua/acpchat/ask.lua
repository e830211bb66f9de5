-- Node's questions to the user (the `ask` event), each to the module of its kind: permission,
-- review, sign-in, forms. Node never waits for Lua; the answer goes back through questions.lua.
local questions = require("acpchat.questions")

local M = {}

-- Each kind's module: ask(chat_id, key, question) and close(key).
local kinds = {
  permission = function()
    return require("acpchat.permission")
  end,
  review = function()
    return require("acpchat.review")
  end,
  auth = function()
    return require("acpchat.auth")
  end,
  elicitation = function()
    return require("acpchat.elicitation")
  end,
}

function M.ask(chat_id, key, kind, question)
  local mod = kinds[kind]
  questions.track(key, chat_id, kind)
  if not mod then
    -- Nobody here can answer it: say so at once rather than leave the agent waiting.
    return questions.reply(key, nil)
  end
  mod().ask(chat_id, key, question)
end

--- Node withdrew the question (turn cancelled, chat closed, agent gone): close its window.
function M.dismiss(key, kind)
  questions.forget(key)
  local mod = kinds[kind]
  if mod then
    mod().close(key)
  end
end

return M
