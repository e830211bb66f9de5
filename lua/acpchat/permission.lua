-- Permission questions (session/request_permission) through vim.ui.select, so telescope,
-- fzf-lua, snacks or the built-in numbered list all work. Node asks one question at a time.
local bridge = require("acpchat.bridge")
local questions = require("acpchat.questions")

local M = {}
--- Open questions: key -> { chat, q }.
local open = {}

local kind_label = {
  allow_once = "allow once",
  allow_always = "allow always",
  reject_once = "reject",
  reject_always = "reject always",
}

--- The question's text: tool call title, kind, locations and a compact view of its input.
function M.prompt_text(q)
  local lines = { string.format("%s [%s]", q.title, q.kind) }
  for _, loc in ipairs(q.locations or {}) do
    lines[#lines + 1] = "  " .. loc
  end
  if q.input and q.input ~= vim.NIL and q.input ~= "" then
    lines[#lines + 1] = "  " .. q.input
  end
  for _, d in ipairs(q.diffs or {}) do
    lines[#lines + 1] = string.format("  +%d -%d %s", d.added, d.removed, d.path)
  end
  return table.concat(lines, "\n")
end

--- The choices, in the agent's order, plus "show the diff first" when there is one.
function M.choices(q)
  local items = {}
  for _, o in ipairs(q.options) do
    items[#items + 1] = { id = o.id, label = string.format("%s (%s)", o.name, kind_label[o.kind] or o.kind), kind = o.kind }
    -- An "always" answer can also be remembered by the client, for the project.
    if o.kind == "allow_always" or o.kind == "reject_always" then
      items[#items].remember = "session"
      items[#items + 1] = { id = o.id, label = string.format("%s (%s, remember for this project)", o.name, kind_label[o.kind]), kind = o.kind, remember = "project" }
    end
  end
  if q.diffs and #q.diffs > 0 then
    items[#items + 1] = { show_diff = true, label = "Show the diff first" }
  end
  return items
end

local function answer(key, option_id, remember)
  open[key] = nil
  questions.reply(key, option_id and { option_id = option_id, remember = remember } or nil)
end

--- Esc or an empty choice rejects once when the agent offers that; else the turn's question is cancelled.
local function dismissed(q)
  for _, o in ipairs(q.options) do
    if o.kind == "reject_once" then
      return o.id
    end
  end
  return nil
end

function M.ask(chat_id, key, q)
  open[key] = { chat = chat_id, q = q }
  vim.schedule(function()
    M.select(key, q)
  end)
end

function M.select(key, q)
  if not open[key] then
    return
  end
  local items = M.choices(q)
  vim.ui.select(items, {
    prompt = "Allow the agent to: " .. M.prompt_text(q),
    kind = "acpchat_permission",
    format_item = function(item)
      return item.label
    end,
  }, function(item)
    if item and item.show_diff then
      local ok, review = pcall(require, "acpchat.review")
      if ok and review.show_permission_diff then
        review.show_permission_diff(open[key] and open[key].chat, q, function()
          M.select(key, q)
        end)
      else
        M.select(key, q)
      end
      return
    end
    answer(key, item and item.id or dismissed(q), item and item.remember)
  end)
end



--- :AcpChatPermissions: the rules the client remembered for this chat; choosing one removes it.
--- Withdrawn: a picker still open answers nothing (vim.ui.select cannot be closed from outside).
function M.close(key)
  open[key] = nil
end

function M.manage(chat)
  bridge.call("permissions", { chat = chat.id }, function(err, rules)
    if err then
      return require("acpchat.util").notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    M.pick_rule(chat, rules)
  end)
end

function M.pick_rule(chat, rules)
  if #rules == 0 then
    return require("acpchat.util").notify("acpchat: no remembered permission rules for this chat")
  end
  vim.ui.select(rules, {
    prompt = "Remembered permission rules (choose one to remove it):",
    format_item = function(r)
      return string.format("%s %s (%s, for this %s)", r.action, r.tool, r.agent, r.scope)
    end,
  }, function(r)
    if r then
      bridge.call("permission_remove", { chat = chat.id, rule = r.id }, function(err)
        require("acpchat.util").notify(err and ("acpchat: " .. err) or ("acpchat: removed the rule: " .. r.action .. " " .. r.tool), err and vim.log.levels.ERROR or nil)
      end)
    end
  end)
end

return M
