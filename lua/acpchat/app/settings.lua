-- A chat's mode, model and other options (:AcpChatMode, :AcpChatModel, :AcpChatOption), through
-- vim.ui.select or set directly. Picking needs no call to Node: the chat's status (sent by Node
-- with every change) holds what the agent offers. Setting one is sent without waiting.
local bridge = require("acpchat.host.bridge")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local text = require("acpchat.transcript.text")

local M = {}

local function need_chat()
  return registry.need()
end

--- Send a setting to the agent; a failure is one line, when it comes.
local function text_flat(x)
  return text.flat(x, 80)
end

--- A mode or option change: the error, or one line saying it is done (it was silent).
local function try(method, params)
  bridge.call(method, params, function(err)
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    if method == "set_mode" then
      util.notify("acpchat: mode set to " .. text_flat(params.mode))
    elseif method == "set_option" then
      util.notify("acpchat: " .. text_flat(params.option) .. " set to " .. text_flat(tostring(params.value)))
    end
  end)
end

local function modes_of(c)
  return (c.status and c.status.modes) or { available = {} }
end

--- Options (and legacy models) as the status mirror has them.
local function options_of(c)
  local s = c.status or {}
  return { options = s.options or {}, legacy_models = s.legacy_models }
end

--- `id` is one of `valid`; else say which are.
local function check(what, id, valid)
  if vim.tbl_contains(valid, id) then
    return true
  end
  util.notify(
    string.format(
      "acpchat: no %s %q; valid: %s",
      what,
      id,
      #valid > 0 and table.concat(valid, ", ") or "(none offered)"
    ),
    vim.log.levels.WARN
  )
  return false
end

--- :AcpChatMode [id]
function M.mode(id)
  local c = need_chat()
  if not c then
    return
  end
  local modes = modes_of(c)
  if id and id ~= "" then
    local valid = vim.tbl_map(function(m)
      return m.id
    end, modes.available)
    if check("mode", id, valid) then
      try("set_mode", { chat = c.id, mode = id })
    end
    return
  end
  if #modes.available == 0 then
    return util.notify("acpchat: " .. c.agent .. " has no modes")
  end
  vim.ui.select(modes.available, {
    prompt = "Mode:",
    format_item = function(m)
      return (m.id == modes.current and "● " or "  ")
        .. m.name
        .. (m.description and (" — " .. m.description) or "")
    end,
  }, function(m)
    if m then
      try("set_mode", { chat = c.id, mode = m.id })
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
      try("set_option", { chat = c.id, option = opt.id, value = v.value })
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
    return {
      id = "__legacy_model",
      name = "Model",
      current = opts.legacy_models.current,
      values = opts.legacy_models.values,
    }
  end
end

--- :AcpChatModel [id]
function M.model(id)
  local c = need_chat()
  if not c then
    return
  end
  local opt = model_option(options_of(c))
  if not opt then
    return util.notify("acpchat: " .. c.agent .. " offers no model choice")
  end
  if id and id ~= "" then
    local valid = vim.tbl_map(function(v)
      return tostring(v.value)
    end, opt.values)
    if check("model", id, valid) then
      try("set_option", { chat = c.id, option = opt.id, value = id })
    end
    return
  end
  pick_value(c, opt)
end

--- :AcpChatOption [id] [value]
function M.option(id, value)
  local c = need_chat()
  if not c then
    return
  end
  local opts = options_of(c).options
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
      return check(
        "option",
        id,
        vim.tbl_map(function(x)
          return x.id
        end, opts)
      )
    end
    if value and value ~= "" then
      local valid = vim.tbl_map(function(v)
        return tostring(v.value)
      end, o.values)
      if check("value of " .. id, value, valid) then
        try("set_option", { chat = c.id, option = id, value = value })
      end
      return
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
    local c = registry.current()
    if not c then
      return {}
    end
    local ok, items = pcall(function()
      if kind == "mode" then
        return vim.tbl_map(function(m)
          return m.id
        end, modes_of(c).available)
      end
      local opts = options_of(c)
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
