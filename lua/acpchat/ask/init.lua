-- Node's questions to the user (the `ask` event), each to the module of its kind: permission,
-- review, sign-in, forms. Node never waits for Lua; the answer goes back through questions.lua.
--
-- Every handler runs guarded: the module's ask() here, and what it defers (vim.schedule, a
-- picker's callback) through the `guard` it is given. A handler that fails (a malformed
-- question, a picker plugin that raises) never leaves a stack trace or a question nobody
-- answers: the question is answered as dismissed (Node tells the agent `cancel`, or rejects)
-- and one note says what failed.
local questions = require("acpchat.ask.questions")
local bridge = require("acpchat.host.bridge")
local waiting = require("acpchat.chat.waiting")
local text = require("acpchat.transcript.text")
local permission = require("acpchat.ask.permission")
local review = require("acpchat.ask.review")
local auth = require("acpchat.ask.auth")
local elicitation = require("acpchat.ask.elicitation")

local M = {}

-- Each kind's module: ask(chat_id, key, question, guard) and close(key); its question is
-- acpchat.question.<Kind> and its answer (questions.reply) acpchat.answer.<Kind>
-- (lua/acpchat/_meta/contract.lua, generated from src/wire/questions.ts).
local kinds = { permission = permission, review = review, auth = auth, elicitation = elicitation }

local names =
  { permission = "permission question", review = "review", auth = "sign-in question", elicitation = "question" }

--- Question `key` failed with `err`: closed, answered as dismissed, one note (the stack goes
--- to :AcpChatLog).
local function failed(key, kind, err)
  local q = questions.open[key]
  if kinds[kind] then
    pcall(function()
      kinds[kind].close(key)
    end)
  end
  questions.reply(key, nil)
  if q then
    bridge.fail(
      string.format("the agent's %s could not be shown, so it was dismissed", names[kind] or kind),
      err,
      q.chat
    )
  end
end

--- `guard(fn)`: fn, run so that an error answers question `key` instead of escaping.
function M.guard(key, kind)
  return function(fn)
    return function(...)
      local ok, err = xpcall(fn, debug.traceback, ...)
      if not ok then
        failed(key, kind, err)
      end
    end
  end
end

--- A question in a few words, for the winbar while it waits (waiting.lua).
local function label(kind, q)
  local flat = text.flat
  if kind == "permission" then
    return permission.label(q)
  elseif kind == "review" then
    local name = flat(vim.fn.fnamemodify(q.path or "", ":t"), 80)
    if q.reason == "disk" then
      return "compare " .. name .. " with the agent's change on disk"
    end
    return "review the change to " .. name
  elseif kind == "auth" then
    return "sign in"
  end
  return flat(q.message or names[kind] or kind, 80)
end

--- Long texts of questions, sent ahead of them in parts (src/nvim/questions.ts): key -> field -> parts.
local parts = {}

---@param key string
---@param field string
---@param piece string
function M.part(key, field, piece)
  parts[key] = parts[key] or {}
  local list = parts[key][field] or {}
  parts[key][field] = list
  list[#list + 1] = piece
end

--- `question` may carry `parts`: the names of its long text fields, sent ahead (M.part).
---@param chat_id integer
---@param key string
---@param kind acpchat.wire.QuestionKind
---@param question acpchat.question.Any|{ parts?: string[] }
function M.ask(chat_id, key, kind, question)
  if type(question) == "table" and question.parts then
    for _, field in ipairs(question.parts) do
      question[field] = table.concat((parts[key] or {})[field] or {})
    end
    question.parts = nil
  end
  parts[key] = nil
  local mod = kinds[kind]
  questions.track(key, chat_id, kind)
  if not mod then
    -- Nobody here can answer it: say so at once rather than leave the agent waiting.
    return questions.reply(key, nil)
  end
  local guard = M.guard(key, kind)
  local function run()
    if not questions.is_open(key) then
      return
    end
    -- Where the user is when it opens is where they go back to after answering.
    questions.track(key, chat_id, kind)
    guard(function()
      mod.ask(chat_id, key, question, guard)
    end)()
  end
  -- The user is typing: it waits, shown in the chat's winbar and transcript (waiting.lua), and
  -- opens when they stop or ask for it. A take-back review (gd, ]f in :AcpChatReview) is not
  -- the agent's question but the answer to the key just typed: it opens at once.
  local asked_for = kind == "review" and type(question) == "table" and question.reason == "changes"
  if not asked_for and waiting.typing() then
    local choices = kind == "permission"
        and vim.tbl_map(function(it)
          return it.label
        end, permission.choices(question))
      or nil
    return waiting.hold(key, chat_id, label(kind, question), run, { choices = choices, tab = kind == "review" })
  end
  run()
end

--- Node withdrew the question (turn cancelled, chat closed, agent gone): close its window.
---@param key string
---@param kind acpchat.wire.QuestionKind
function M.dismiss(key, kind)
  questions.forget(key)
  waiting.drop(key)
  local mod = kinds[kind]
  if mod then
    mod.close(key)
  end
end

return M
