-- Handing a conversation to another agent: `:AcpChat! {agent} from` starts a new chat of
-- `agent` whose first prompt carries this tab's chat's transcript (as drawn, so redacted; capped
-- here and redacted again in Node), so the new agent continues where the other one was.
-- `from={n}` names another live chat by its number (as :AcpChatList shows it).
local util = require("acpchat.util")
local config = require("acpchat.config")
local registry = require("acpchat.chat.registry")
local prompt = require("acpchat.chat.prompt")

local api = vim.api
local M = {}

--- Most bytes of a transcript handed over (its end: where the conversation is).
M.max_bytes = 96 * 1024

--- `:AcpChat` arguments: the agent (or nil) and the chat handed over (`true`: this tab's, a
--- number: that chat), or nil; an error for anything else.
function M.parse(fargs)
  local agent, from
  for _, a in ipairs(fargs) do
    if a == "from" or a == "from=" then
      from = true
    elseif a:match("^from=") then
      from = tonumber(a:sub(6))
      if not from then
        return nil, nil, "from= takes a chat's number (as :AcpChatList shows it): " .. a
      end
    elseif not agent then
      agent = a
    else
      return nil, nil, "one agent at most, then from or from={n}: " .. a
    end
  end
  return agent, from
end

--- Completion of `:AcpChat`'s arguments: agents, then `from` and `from={n}` for live chats.
function M.complete(lead, line)
  local out = {}
  local words = vim.split(vim.trim(line), "%s+")
  local first = #words <= 1 or (#words == 2 and lead ~= "")
  if first then
    out = vim.list_extend(out, config.agent_names())
    if lead == "" then
      return out
    end
  end
  out[#out + 1] = "from"
  local ids = vim.tbl_keys(registry.chats)
  table.sort(ids)
  for _, id in ipairs(ids) do
    out[#out + 1] = "from=" .. id
  end
  return vim.tbl_filter(function(s)
    return vim.startswith(s, lead)
  end, out)
end

--- The transcript of `chat` as it is drawn, its last M.max_bytes.
function M.transcript(chat)
  if not chat.buf or not api.nvim_buf_is_valid(chat.buf) then
    return ""
  end
  -- As :AcpChatSave writes it: a line the buffer broke for its length (long_line.lua) whole.
  local text = table.concat(require("acpchat.transcript.save").body(chat), "\n")
  if #text > M.max_bytes then
    text = "[… the conversation's start was left out]\n" .. text:sub(#text - M.max_bytes + 1):gsub("^[^\n]*\n", "")
  end
  return text
end

--- Start a chat of `agent` (the handed-over chat's agent when nil) with chat `from`'s
--- conversation as context of its first prompt (`from`: true for this tab's chat, or its number).
function M.open(agent, from)
  local reg = registry
  local source = from == true and reg.current() or (type(from) == "number" and reg.get(from)) or nil
  if not source then
    return util.notify(
      from == true and "acpchat: no chat in this tab to hand over (from={n} names one: :AcpChatList)"
        or ("acpchat: no chat " .. tostring(from) .. " to hand over (:AcpChatList)"),
      vim.log.levels.WARN
    )
  end
  local text = M.transcript(source)
  if vim.trim(text) == "" then
    return util.notify("acpchat: chat " .. source.id .. " has no conversation yet to hand over", vim.log.levels.WARN)
  end
  local title = source.status and source.status.title
  -- A new chat, shown here with the cursor in its prompt (as :AcpChat! does).
  local chat = require("acpchat.app.chats").create(agent or source.agent)
  if not chat then
    return
  end
  require("acpchat.chat.layout").show(chat)
  vim.cmd("startinsert!")
  if chat.cwd ~= source.cwd then
    -- Another project's conversation stays in its project.
    return util.notify(
      string.format(
        "acpchat: chat %d works in %s, not in %s: its conversation is not handed over",
        source.id,
        source.cwd,
        chat.cwd
      ),
      vim.log.levels.WARN
    )
  end
  table.insert(chat.context, {
    type = "text",
    label = string.format("the conversation with %s (chat %d)", source.agent, source.id),
    uri = "acpchat://chat/" .. (source.status and source.status.session_id or source.id),
    title = string.format(
      "The conversation so far with another agent (%s%s), handed over to you: continue from it",
      source.agent,
      title and (", “" .. title .. "”") or ""
    ),
    text = text,
  })
  prompt.show_context(chat)
  util.notify(string.format("acpchat: %s gets the conversation with %s on its first prompt", chat.agent, source.agent))
  return chat
end

return M
