-- Permission questions (session/request_permission) through vim.ui.select, so telescope,
-- fzf-lua, snacks or the built-in numbered list all work. Node asks one question at a time.
--
-- A question is never answered by keys typed before it appeared: whatever is in the typeahead
-- when the question arrives, and again when it is drawn, is taken out and given back after the
-- answer (so the picker, the built-in numbered list included, waits for a key pressed after it
-- was drawn). The "always" answers come after the "once" answers, so a stray digit cannot pick
-- one either. Every text shown is one line (text.flat): an agent cannot draw fake options.
local bridge = require("acpchat.host.bridge")
local questions = require("acpchat.ask.questions")
local text = require("acpchat.transcript.text")
local registry = require("acpchat.chat.registry")
local layout = require("acpchat.chat.layout")
local util = require("acpchat.util")
local waiting = require("acpchat.chat.waiting")

local M = {}

local function unguarded(fn)
  return fn
end
--- Open questions: key -> { chat, q, typeahead }.
M.open = {}
local open = M.open

--- What each answer covers, said plainly (the agent's own names for its options vary, and
--- gemini's "Allow for this session" next to "remember for this project" contradicted itself).
local ONCE = "this call"
local SESSION = "this session; the agent may keep it too"
local PROJECT = "this project (the editor keeps it; the agent may keep it too)"

local flat = text.flat

--- The question's text: tool call title, kind, locations and a compact view of its input,
--- each on a line of its own.
---@param q acpchat.question.Permission
---@return string
function M.prompt_text(q)
  local lines =
    { string.format("%s [%s]", flat(q.title or q.tool_call_id or "tool call", 200), flat(q.kind or "other", 40)) }
  -- ACP v2: the request's own description, and the tool call it is about when titled apart.
  if type(q.description) == "string" and q.description ~= "" then
    lines[#lines + 1] = "  " .. flat(q.description, 300)
  end
  if type(q.subject) == "string" and q.subject ~= "" then
    lines[#lines + 1] = "  about: " .. flat(q.subject, 200)
  end
  for _, loc in ipairs(q.locations or {}) do
    lines[#lines + 1] = "  " .. flat(loc, 300)
  end
  if type(q.input) == "string" and q.input ~= "" then
    lines[#lines + 1] = "  " .. flat(q.input, 300)
  end
  for _, d in ipairs(q.diffs or {}) do
    lines[#lines + 1] =
      string.format("  +%d -%d %s", tonumber(d.added) or 0, tonumber(d.removed) or 0, flat(d.path, 300))
  end
  return table.concat(lines, "\n")
end

local function is_always(kind)
  return kind == "allow_always" or kind == "reject_always"
end

--- The choices: the agent's "once" options first, then its "always" options (each also offered
--- remembered for the project), then "show the diff first" when there is one.
---@param q acpchat.question.Permission
function M.choices(q)
  local items = {}
  local function add(o, i)
    local name = flat(o.name, 80)
    local scope = is_always(o.kind) and SESSION
      or (o.kind == "allow_once" or o.kind == "reject_once") and ONCE
      or flat(o.kind, 40)
    items[#items + 1] = { option = i, label = string.format("%s (%s)", name, scope), kind = o.kind }
    -- An "always" answer can also be remembered by the client, for the project.
    if is_always(o.kind) then
      items[#items].remember = "session"
      -- Named for what it does (the agent's name may say "for this session", which this is not).
      local verb = o.kind == "allow_always" and "allow" or "reject"
      items[#items + 1] =
        { option = i, label = string.format("Always %s in %s", verb, PROJECT), kind = o.kind, remember = "project" }
    end
  end
  for i, o in ipairs(q.options or {}) do
    if not is_always(o.kind) then
      add(o, i)
    end
  end
  for i, o in ipairs(q.options or {}) do
    if is_always(o.kind) then
      add(o, i)
    end
  end
  -- Rejecting stays one choice away, even when the agent offers no option for it.
  local can_reject = vim.iter(q.options or {}):any(function(o)
    return o.kind == "reject_once" or o.kind == "reject_always"
  end)
  if not can_reject then
    items[#items + 1] =
      { cancel = true, label = "Reject (the agent offered no reject option: its question is cancelled)" }
  end
  if q.diffs and #q.diffs > 0 then
    items[#items + 1] = { show_diff = true, label = "Show the diff first" }
  end
  return items
end

--- Take every key waiting in the typeahead (typed, or fed, before the question was drawn).
function M.take_typeahead()
  local keys = {}
  for _ = 1, 10000 do
    local ok, c = pcall(vim.fn.getchar, 0)
    if not ok or c == 0 or c == "" then
      break
    end
    keys[#keys + 1] = type(c) == "number" and vim.fn.nr2char(c) or c
  end
  return table.concat(keys)
end

--- Keys taken from the typeahead for question `key`, kept to be given back after its answer.
local function hold_typeahead(key)
  local keys = M.take_typeahead()
  if keys ~= "" and open[key] then
    open[key].typeahead = (open[key].typeahead or "") .. keys
  elseif keys ~= "" then
    -- The question is gone: give them back at once.
    vim.api.nvim_feedkeys(keys, "t", false)
  end
end

--- The question is over: the keys held back go where they were typed.
local function release(key)
  local o = open[key]
  open[key] = nil
  if o and o.typeahead and o.typeahead ~= "" then
    local keys = o.typeahead
    vim.schedule(function()
      vim.api.nvim_feedkeys(keys, "t", false)
    end)
  end
end

--- The answer names the option by its position in the agent's list (`option`, 1-based), never
--- by its id: an agent may give two options one id.
---@param key string
---@param option integer?
---@param remember? "session"|"project"
local function answer(key, option, remember)
  release(key)
  questions.reply(key, option and { option = option, remember = remember } or nil)
end

--- The list was closed without a choice (Esc, q, an empty answer): that is never an answer. The
--- question waits, parked: shown in the winbar and the transcript until the user opens it again
--- (waiting.lua), and the keys held back go where they were typed.
---@param key string
---@param q acpchat.question.Permission
local function park(key, q)
  local o = open[key]
  if o and o.typeahead and o.typeahead ~= "" then
    local keys = o.typeahead
    o.typeahead = nil
    vim.schedule(function()
      vim.api.nvim_feedkeys(keys, "t", false)
    end)
  end
  local labels = vim.tbl_map(function(it)
    return it.label
  end, M.choices(q))
  waiting.hold(key, o.chat, M.label(q), function()
    if not open[key] then
      return
    end
    local t = questions.open[key]
    if t then
      -- Back to where the user is now, after the answer.
      questions.track(key, t.chat, t.kind)
    end
    (o.guard or unguarded)(function()
      M.select(key, q)
    end)()
  end, { choices = labels, parked = true })
end

--- The question in a few words (the winbar and the question block).
---@param q acpchat.question.Permission
---@return string
function M.label(q)
  -- A v2 request's own title is a question already ("Allow the change to a.txt?").
  if q.own_title then
    return flat(q.title, 80)
  end
  return "allow " .. flat(q.title or q.tool_call_id or "a tool call", 80)
end

--- `guard` (ask.lua): wraps what runs later, so that a failure answers the question.
---@param chat_id integer
---@param key string
---@param q acpchat.question.Permission
---@param guard? fun(fn: function): function  ask.lua's: a failure answers the question
function M.ask(chat_id, key, q, guard)
  guard = guard or unguarded
  open[key] = { chat = chat_id, q = q, guard = guard }
  -- Keys typed before the question arrived never answer it.
  hold_typeahead(key)
  vim.schedule(guard(function()
    M.select(key, q)
  end))
end

---@param key string
---@param q acpchat.question.Permission
function M.select(key, q)
  if not open[key] then
    return
  end
  local guard = open[key].guard or unguarded
  -- Nor keys typed between its arrival and its drawing.
  hold_typeahead(key)
  local items = M.choices(q)
  local chat = registry.get(open[key].chat)
  -- Asked from a chat not shown here: going to it first is a choice, never done for the user.
  if chat and not layout.visible(chat) then
    table.insert(
      items,
      #items + ((items[#items] or {}).show_diff and 0 or 1),
      { go_to_chat = true, label = string.format("Go to chat %d first (ask there)", chat.id) }
    )
  end
  vim.ui.select(
    items,
    {
      prompt = registry.who(open[key].chat) .. (q.own_title and " " or " Allow the agent to: ") .. M.prompt_text(q),
      kind = "acpchat_permission",
      format_item = function(item)
        return item.label
      end,
    },
    guard(function(item)
      if not open[key] then
        return
      end
      if item and item.go_to_chat then
        -- Offered only for a chat that exists (see the choices above).
        return M.go_to_chat(key, q, chat --[[@as acpchat.Chat]])
      end
      if item and item.show_diff then
        -- The per-hunk review is the answer: Node opens it (accept all: allow; none: reject;
        -- some: allow, and only those hunks stay).
        release(key)
        questions.reply(key, { review = true })
        return
      end
      if not item then
        return park(key, q)
      end
      if item.cancel then
        -- The agent offered no way to reject: the explicit choice cancels its question.
        return answer(key, nil)
      end
      answer(key, item.option, item.remember)
    end)
  )
end

--- The user chose to answer question `key` in its chat: the chat's tab when it is shown in one,
--- else this tab shows it; the question opens again there, and after the answer the user stays.
---@param chat acpchat.Chat
function M.go_to_chat(key, q, chat)
  local w = vim.fn.win_findbuf(chat.prompt_buf)[1] or vim.fn.win_findbuf(chat.buf)[1]
  if w then
    vim.api.nvim_set_current_tabpage(vim.api.nvim_win_get_tabpage(w))
  end
  layout.show(chat)
  vim.cmd("stopinsert")
  local o = questions.open[key]
  if o then
    questions.track(key, o.chat, o.kind)
  end
  vim.schedule((open[key] and open[key].guard or unguarded)(function()
    M.select(key, q)
  end))
end

--- Withdrawn: a picker still open answers nothing (vim.ui.select cannot be closed from outside).
function M.close(key)
  release(key)
end

--- :AcpChatPermissions: the rules the client remembered for this chat, each with what it
--- approves (its key: the command line, the path, or the tool with its input); choosing one
--- removes it.
---@param chat acpchat.Chat
function M.manage(chat)
  bridge.call("permissions", { chat = chat.id }, function(err, rules)
    ---@cast rules acpchat.reply.Permissions
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    M.pick_rule(chat, rules)
  end)
end

--- How a remembered rule reads in the list.
function M.rule_text(r)
  return string.format("%s  %s  (%s, this %s)", r.action, flat(r.tool, 200), flat(r.agent, 40), r.scope)
end

---@param chat acpchat.Chat
function M.pick_rule(chat, rules)
  if #rules == 0 then
    return util.notify("acpchat: no remembered permission rules for this chat")
  end
  vim.ui.select(rules, {
    prompt = "Remembered permission rules (choose one to remove it):",
    format_item = M.rule_text,
  }, function(r)
    if r then
      bridge.call("permission_remove", { chat = chat.id, rule = r.id }, function(err)
        util.notify(
          err and ("acpchat: " .. err) or ("acpchat: removed the rule: " .. r.action .. " " .. flat(r.tool, 200)),
          err and vim.log.levels.ERROR or nil
        )
      end)
    end
  end)
end

return M
