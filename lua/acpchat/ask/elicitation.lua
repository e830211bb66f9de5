-- Questions from the agent (elicitation/create): a form asked field by field with vim.ui.input
-- and vim.ui.select, or a URL shown and opened only after the user agrees. Any <Esc> cancels.
-- Node sends them ready to show (src/view/question-view.ts: the agent's text redacted, a
-- malformed form or a disguised URL refused); every text is drawn on one line here too
-- (text.flat). Answers go back by position: which field, which choice.
local questions = require("acpchat.ask.questions")
local text = require("acpchat.transcript.text")
local util = require("acpchat.util")
local registry = require("acpchat.chat.registry")

local flat = text.flat
local M = {}

local function prompt_of(who, message, label)
  return who .. " " .. flat(message, 300) .. "\n" .. label
end

---@param who string
---@param key string
---@param q acpchat.question.Elicitation.form
---@param guard fun(fn: function): function
local function ask_form(who, key, q, guard)
  local fields = q.fields or {}
  local answers = {}
  local i = 0
  local next_field
  local function cancel()
    questions.reply(key, { action = "cancel" })
  end
  next_field = function()
    i = i + 1
    local f = fields[i]
    if not f then
      return questions.reply(key, { action = "accept", answers = answers })
    end
    local label = flat(f.label, 120) .. (f.description and (" — " .. flat(f.description, 300)) or "")
    if f.type == "choice" then
      local items = {}
      for n, c in ipairs(f.choices or {}) do
        items[n] = { choice = n, label = flat(c, 120) }
      end
      vim.ui.select(
        items,
        {
          prompt = prompt_of(who, q.message, label .. ":"),
          kind = "acpchat_elicitation",
          format_item = function(o)
            return o.label
          end,
        },
        guard(function(o)
          if not o then
            return cancel()
          end
          answers[#answers + 1] = { field = i, choice = o.choice }
          next_field()
        end)
      )
    else
      vim.ui.input(
        { prompt = who .. " " .. label .. ": ", default = f.default },
        guard(function(v)
          if v == nil then
            return cancel()
          end
          if v == "" and not f.required then
            return next_field()
          end
          if (f.type == "number" or f.type == "integer") and not tonumber(v) then
            util.notify("acpchat: " .. flat(f.label, 120) .. " must be a number", vim.log.levels.WARN)
            i = i - 1
            return next_field()
          end
          answers[#answers + 1] = { field = i, text = v }
          next_field()
        end)
      )
    end
  end
  next_field()
end

--- The URL shown is the one opened (Node's normal form of it); only a secret in it is hidden.
---@param who string
---@param key string
---@param q acpchat.question.Elicitation.url
---@param guard fun(fn: function): function
local function ask_url(who, key, q, guard)
  local shown = flat(q.shown, 2000) .. (q.hidden and "  (a secret in it is hidden here)" or "")
  vim.ui.select(
    { "Open in the browser", "Decline" },
    {
      prompt = who .. " " .. flat(q.message, 300) .. "\nOpens: " .. shown,
      kind = "acpchat_elicitation",
    },
    guard(function(_, idx)
      if idx == 1 then
        local ok = pcall(vim.ui.open, q.url)
        questions.reply(key, ok and { action = "accept" } or { action = "cancel" })
      elseif idx == 2 then
        questions.reply(key, { action = "decline" })
      else
        questions.reply(key, { action = "cancel" })
      end
    end)
  )
end

---@param chat_id integer
---@param key string
---@param q acpchat.question.Elicitation
---@param guard? fun(fn: function): function  ask.lua's: a failure answers the question
function M.ask(chat_id, key, q, guard)
  guard = guard or function(fn)
    return fn
  end
  vim.schedule(guard(function()
    -- Which agent and chat asks ("[claude · chat 2]"): registry.who.
    local who = registry.who(chat_id)
    if q.mode == "url" then
      ask_url(who, key, q, guard)
    elseif q.mode == "form" then
      ask_form(who, key, q, guard)
    else
      questions.reply(key, { action = "decline" })
    end
  end))
end

--- Withdrawn: a later answer is dropped (vim.ui pickers cannot be closed from outside).
function M.close(_) end

return M
