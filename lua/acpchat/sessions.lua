-- Past sessions, modes, models and other settings, through vim.ui.select (or set directly).
local config = require("acpchat.config")
local rpc = require("acpchat.rpc")
local util = require("acpchat.util")

local M = {}

local function index_file()
  return vim.fn.stdpath("state") .. "/acpchat/sessions.json"
end
M.index_file = index_file

local function agent_spec(name)
  local a = config.agents()[name]
  if not a then
    return nil
  end
  return { name = name, command = a.command, args = a.args or {}, env = a.env or vim.empty_dict(), cwd = a.cwd }
end

local function age(iso)
  if not iso then
    return ""
  end
  return iso:gsub("T", " "):sub(1, 16)
end

--- :AcpChatSessions[!] [agent]: open (or with !, delete) one of the project's sessions.
function M.pick(agent_name, delete)
  local chat = require("acpchat.chat").current()
  local name = agent_name or (chat and chat.agent) or config.default_agent()
  local spec = name and agent_spec(name)
  if not spec then
    return util.notify("acpchat: no agent to list sessions of", vim.log.levels.WARN)
  end
  local cwd = spec.cwd or vim.fn.getcwd()
  local ok, res = pcall(rpc.request, "sessions", { agent = spec, cwd = cwd, session_index = index_file() })
  if not ok then
    return util.notify(tostring(res), vim.log.levels.ERROR)
  end
  if #res.sessions == 0 then
    return util.notify("acpchat: no past sessions of " .. name .. " in " .. cwd)
  end
  if delete and not res.can_delete then
    return util.notify("acpchat: " .. name .. " cannot delete sessions", vim.log.levels.WARN)
  end
  if not delete and not res.can_open then
    return util.notify("acpchat: " .. name .. " cannot load or resume sessions", vim.log.levels.WARN)
  end
  vim.ui.select(res.sessions, {
    prompt = (delete and "Delete a session of " or "Open a session of ") .. name .. ":",
    kind = "acpchat_session",
    format_item = function(s)
      return string.format("%s  %s", age(s.updated_at), s.title or s.session_id)
    end,
  }, function(s)
    if not s then
      return
    end
    if delete then
      local ok2, err = pcall(rpc.request, "delete_session", { agent = spec, cwd = cwd, session_id = s.session_id, session_index = index_file() })
      util.notify(ok2 and ("acpchat: deleted " .. (s.title or s.session_id)) or tostring(err), ok2 and vim.log.levels.INFO or vim.log.levels.ERROR)
    else
      local chats = require("acpchat.chat")
      local c = chats.create(name, { resume = s.session_id })
      if c then
        chats.show(c)
      end
    end
  end)
end

local function need_chat()
  return require("acpchat.chat").need()
end

local function try(method, params)
  local ok, err = pcall(rpc.request, method, params)
  if not ok then
    util.notify(tostring(err), vim.log.levels.ERROR)
  end
  return ok
end

--- :AcpChatMode [id]
function M.mode(id)
  local c = need_chat()
  if not c then
    return
  end
  if id and id ~= "" then
    return try("set_mode", { id = c.id, mode = id })
  end
  local modes = rpc.request("modes", { id = c.id })
  if #modes.available == 0 then
    return util.notify("acpchat: " .. c.agent .. " has no modes")
  end
  vim.ui.select(modes.available, {
    prompt = "Mode:",
    format_item = function(m)
      return (m.id == modes.current and "● " or "  ") .. m.name .. (m.description and (" — " .. m.description) or "")
    end,
  }, function(m)
    if m then
      try("set_mode", { id = c.id, mode = m.id })
    end
  end)
end

local function pick_value(c, opt)
  vim.ui.select(opt.values, {
    prompt = opt.name .. ":",
    format_item = function(v)
      return (v.value == opt.current and "● " or "  ") .. v.name
    end,
  }, function(v)
    if v ~= nil then
      try("set_option", { id = c.id, option = opt.id, value = v.value })
    end
  end)
end

--- The model setting: a config option of category "model", or the legacy models list.
local function model_option(opts)
  for _, o in ipairs(opts.options) do
    if o.category == "model" then
      return o
    end
  end
  if opts.legacy_models then
    return { id = "__legacy_model", name = "Model", current = opts.legacy_models.current, values = opts.legacy_models.values }
  end
end

--- :AcpChatModel [id]
function M.model(id)
  local c = need_chat()
  if not c then
    return
  end
  local opt = model_option(rpc.request("options", { id = c.id }))
  if not opt then
    return util.notify("acpchat: " .. c.agent .. " offers no model choice")
  end
  if id and id ~= "" then
    return try("set_option", { id = c.id, option = opt.id, value = id })
  end
  pick_value(c, opt)
end

--- :AcpChatOption [id] [value]
function M.option(id, value)
  local c = need_chat()
  if not c then
    return
  end
  local opts = rpc.request("options", { id = c.id }).options
  if #opts == 0 then
    return util.notify("acpchat: " .. c.agent .. " has no options")
  end
  local function by_id(x)
    for _, o in ipairs(opts) do
      if o.id == x then
        return o
      end
    end
  end
  if id and id ~= "" then
    local o = by_id(id)
    if not o then
      return util.notify("acpchat: no option " .. id, vim.log.levels.WARN)
    end
    if value and value ~= "" then
      return try("set_option", { id = c.id, option = id, value = value })
    end
    return pick_value(c, o)
  end
  vim.ui.select(opts, {
    prompt = "Option:",
    format_item = function(o)
      local cur = o.current
      for _, v in ipairs(o.values) do
        if v.value == o.current then
          cur = v.name
        end
      end
      return string.format("%s: %s", o.name, tostring(cur))
    end,
  }, function(o)
    if o then
      pick_value(c, o)
    end
  end)
end

--- Completion for :AcpChatMode, :AcpChatModel and :AcpChatOption.
function M.complete(kind)
  return function(arglead, cmdline)
    local c = require("acpchat.chat").current()
    if not c then
      return {}
    end
    local ok, items = pcall(function()
      if kind == "mode" then
        return vim.tbl_map(function(m)
          return m.id
        end, rpc.request("modes", { id = c.id }).available)
      end
      local opts = rpc.request("options", { id = c.id })
      if kind == "model" then
        local o = model_option(opts)
        return o and vim.tbl_map(function(v)
          return tostring(v.value)
        end, o.values) or {}
      end
      local words = vim.split(cmdline, "%s+", { trimempty = true })
      if #words >= 3 or (#words == 2 and cmdline:match("%s$")) then
        for _, o in ipairs(opts.options) do
          if o.id == words[2] then
            return vim.tbl_map(function(v)
              return tostring(v.value)
            end, o.values)
          end
        end
        return {}
      end
      return vim.tbl_map(function(o)
        return o.id
      end, opts.options)
    end)
    if not ok then
      return {}
    end
    return vim.tbl_filter(function(x)
      return vim.startswith(x, arglead)
    end, items)
  end
end

return M
