-- Past sessions: :AcpChatSessions lists the project's sessions (the local index at once, each
-- agent's own list merged as it answers) and opens, renames or deletes the one picked. A chat's
-- mode, model and options are settings.lua.
local bridge = require("acpchat.host.bridge")
local config = require("acpchat.config")
local features = require("acpchat.transcript.features")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local chats = require("acpchat.app.chats")
local text = require("acpchat.transcript.text")
local layout = require("acpchat.chat.layout")
local picker = require("acpchat.chat.session_picker")

local M = {}

local function index_file()
  return chats.index_file()
end

local function agent_spec(name)
  local a = config.agents()[name]
  if not a then
    return nil
  end
  return chats.agent_params(name, a)
end

local function age(iso)
  if not iso then
    return ""
  end
  return iso:gsub("T", " "):sub(1, 16)
end

--- One agent's sessions in `cwd`, merged with the local index. `chat`: an agent started to
--- list them ends when this chat closes.
--- `listing`: an id that abandon_listing stops it with.
---@param cwd string
---@param chat acpchat.Chat?
---@param listing integer?
local function list_sessions(spec, cwd, chat, cb, listing)
  bridge.call("sessions", {
    agent = spec,
    cwd = cwd,
    session_index = index_file(),
    unstable = features.option(),
    chat = chat and chat.id,
    listing = listing,
  }, cb)
end

local next_listing = 1

--- A listing no one waits for any more (the picker closed): the host stops paging it. Never
--- starts a host: without one there is nothing to stop.
local function abandon_listing(listing)
  if bridge.channel then
    bridge.call("sessions_abandon", { listing = listing })
  end
end

--- A session picked (`e`: name, spec, cwd, s): opened (the chat that has it, else a new one), or deleted.
function M.chosen(e, delete)
  if not delete then
    local c = M.open_chat(e.s.session_id) or chats.create(e.name, { resume = e.s.session_id })
    return c and layout.show(c)
  end
  local from = registry.current()
  local call = { agent = e.spec, cwd = e.cwd, session_id = e.s.session_id, session_index = index_file() }
  bridge.call("delete_session", vim.tbl_extend("force", call, { chat = from and from.id }), function(err)
    local what = err and ("could not delete: " .. err) or ("deleted " .. (e.s.title or e.s.session_id))
    util.notify("acpchat: " .. what, err and vim.log.levels.ERROR or nil)
  end)
end

--- Neovim's own vim.ui.select: the live picker (chat/session_picker.lua) lists `names`' sessions.
local function live(names, delete, chat)
  return picker.pick(names, delete, {
    spec = agent_spec,
    --- Returns a function that abandons this listing.
    list = function(spec, cwd, cb)
      local listing = next_listing
      next_listing = next_listing + 1
      list_sessions(spec, cwd, chat, cb, listing)
      return function()
        abandon_listing(listing)
      end
    end,
    label = M.label,
    chosen = function(e)
      M.chosen(e, delete)
    end,
    rename = function(e)
      if not e.can_rename then
        return util.notify("acpchat: " .. e.name .. " cannot rename sessions", vim.log.levels.WARN)
      end
      M.rename(e.name, e.spec, e.cwd, e.s)
    end,
    root = chats.root(),
    index = index_file(),
  })
end

--- :AcpChatSessions[!] [agent]: open (or with !, delete) one of the project's sessions.
function M.pick(agent_name, delete)
  local chat = registry.current()
  -- No agent named and several configured: every agent's sessions, in one list.
  if not agent_name and #config.agent_names() > 1 then
    return M.pick_all(delete)
  end
  local name = agent_name or (chat and chat.agent) or config.default_agent()
  if name and picker.wanted() and agent_spec(name) then
    return live({ name }, delete, chat)
  end
  local spec = name and agent_spec(name)
  if not spec then
    return util.notify("acpchat: no agent to list sessions of", vim.log.levels.WARN)
  end
  local cwd = spec.cwd or chats.root()
  util.notify("acpchat: asking " .. name .. " for its sessions…")
  list_sessions(spec, cwd, chat, function(err, res)
    if err then
      return util.notify("acpchat: could not list the sessions of " .. name .. ": " .. err, vim.log.levels.ERROR)
    end
    M.choose(name, spec, cwd, res, delete)
  end)
end

--- :AcpChatSessions with no agent: every configured agent is asked (at once; each answer is
--- waited for, none blocks the editor), and their sessions are one list, each marked with its
--- agent. An agent that cannot list is left out with one note.
function M.pick_all(delete)
  local chat = registry.current()
  local names = config.agent_names()
  if picker.wanted() then
    return live(names, delete, chat)
  end
  local entries, pending, failed = {}, #names, {}
  util.notify("acpchat: asking " .. table.concat(names, ", ") .. " for their sessions…")
  local function done()
    pending = pending - 1
    if pending > 0 then
      return
    end
    if #failed > 0 then
      util.notify("acpchat: no sessions from " .. table.concat(failed, "; "), vim.log.levels.WARN)
    end
    if #entries == 0 then
      return util.notify("acpchat: no past sessions of any agent here")
    end
    table.sort(entries, function(a, b)
      return (a.s.updated_at or "") > (b.s.updated_at or "")
    end)
    vim.ui.select(entries, {
      prompt = delete and "Delete a session:" or "Open a session:",
      kind = "acpchat_session",
      format_item = function(e)
        return string.format("[%s]  %s", e.name, M.label(e.s, e.cwd))
      end,
    }, function(e)
      if e then
        M.chosen(e, delete)
      end
    end)
  end
  for _, name in ipairs(names) do
    local spec = agent_spec(name)
    if not spec then
      done()
    else
      local cwd = spec.cwd or chats.root()
      list_sessions(spec, cwd, chat, function(err, res)
        if err then
          failed[#failed + 1] = name .. " (" .. text.flat(err, 120) .. ")"
        elseif delete and not res.can_delete or not delete and not res.can_open then
          failed[#failed + 1] = name .. (delete and " (cannot delete sessions)" or " (cannot load or resume sessions)")
        else
          for _, x in ipairs(res.sessions) do
            entries[#entries + 1] = { name = name, spec = spec, cwd = cwd, s = x }
          end
        end
        done()
      end)
    end
  end
end

--- The session already open in a chat, if any.
local function open_chat(session_id)
  for _, c in pairs(registry.chats) do
    if c.status and c.status.session_id == session_id then
      return c
    end
  end
end

--- Folders as the pickers show them (~ for home), each worked out once.
local shown_dirs = {}
--- How a session reads in the pickers.
local function session_label(s, cwd)
  local open = open_chat(s.session_id) and "  [open]" or ""
  local dir = s.cwd or cwd
  shown_dirs[dir] = shown_dirs[dir] or vim.fn.fnamemodify(dir, ":~")
  return string.format("%s  %s  %s%s", age(s.updated_at), picker.title(s), shown_dirs[dir], open)
end
M.open_chat, M.label = open_chat, session_label

--- The picker's last entry when the agent can rename sessions (session/set_title, the title feature).
M.rename_entry = { rename = true }
M.rename_label = "✎ Rename a session…"

--- Rename session `s` of `name`: asks for the title (the current one to edit), then tells the
--- agent (session/set_title); the title the agent stored is the one shown from then on.
---@param cwd string
function M.rename(name, spec, cwd, s)
  vim.ui.input({ prompt = "New title: ", default = s.title or "" }, function(title)
    if not title or vim.trim(title) == "" or title == s.title then
      return
    end
    bridge.call("rename_session", {
      agent = spec,
      cwd = cwd,
      session_id = s.session_id,
      title = title,
      session_index = index_file(),
      unstable = true,
    }, function(err, r)
      if err then
        return util.notify("acpchat: could not rename: " .. err, vim.log.levels.ERROR)
      end
      s.title = r.title
      util.notify(string.format("acpchat: renamed to “%s”", r.title))
    end)
  end)
end

---@param cwd string
function M.choose(name, spec, cwd, res, delete)
  if #res.sessions == 0 then
    return util.notify("acpchat: no past sessions of " .. name .. " in " .. cwd)
  end
  if delete and not res.can_delete then
    return util.notify("acpchat: " .. name .. " cannot delete sessions", vim.log.levels.WARN)
  end
  if not delete and not res.can_open then
    return util.notify("acpchat: " .. name .. " cannot load or resume sessions", vim.log.levels.WARN)
  end
  -- Renaming (the title feature, when the agent supports it) is the picker's last entry.
  local items = vim.list_extend({}, res.sessions)
  if res.can_rename and not delete then
    items[#items + 1] = M.rename_entry
  end
  vim.ui.select(items, {
    prompt = (delete and "Delete a session of " or "Open a session of ") .. name .. ":",
    kind = "acpchat_session",
    format_item = function(s)
      return s.rename and M.rename_label or session_label(s, cwd)
    end,
  }, function(s)
    if not s then
      return
    end
    if s.rename then
      return vim.ui.select(res.sessions, {
        prompt = "Rename a session of " .. name .. ":",
        kind = "acpchat_session",
        format_item = function(x)
          return session_label(x, cwd)
        end,
      }, function(x)
        if x then
          M.rename(name, spec, cwd, x)
        end
      end)
    end
    -- Already open in a chat: go there.
    M.chosen({ name = name, spec = spec, cwd = cwd, s = s }, delete)
  end)
end

return M
