-- Questions from the agent (elicitation/create): a form asked field by field with vim.ui.input
-- and vim.ui.select, or a URL shown and opened only after the user agrees. Any <Esc> cancels.
local questions = require("acpchat.questions")
local M = {}

--- The answer; a form's fields cross as JSON (their names are the agent's, not ours).
local function reply(key, answer)
  if answer.content then
    answer = { action = answer.action, content_json = vim.json.encode(answer.content) }
  end
  questions.reply(key, answer)
end

--- The choices of an enum field: { value, label } pairs, or nil for a free-form field.
local function choices(prop)
  if prop.type == "boolean" then
    return { { value = true, label = "yes" }, { value = false, label = "no" } }
  end
  if type(prop.oneOf) == "table" then
    return vim.tbl_map(function(o)
      return { value = o.const, label = o.title or o.const }
    end, prop.oneOf)
  end
  if type(prop.enum) == "table" then
    return vim.tbl_map(function(v)
      return { value = v, label = tostring(v) }
    end, prop.enum)
  end
end

local function ask_form(key, req)
  local schema = req.schema_json and vim.json.decode(req.schema_json) or {}
  local props = schema.properties or {}
  -- Required fields first, in the schema's order; then the others by name (Lua tables keep no order).
  local required, names = {}, {}
  for _, r in ipairs(schema.required or {}) do
    if props[r] and not required[r] then
      required[r] = true
      names[#names + 1] = r
    end
  end
  local rest = vim.tbl_filter(function(n)
    return not required[n]
  end, vim.tbl_keys(props))
  table.sort(rest)
  vim.list_extend(names, rest)
  local content = {}
  local i = 0
  local function next_field()
    i = i + 1
    local name = names[i]
    if not name then
      return reply(key, { action = "accept", content = content })
    end
    local prop = props[name]
    local label = (prop.title or name) .. (required[name] and "" or " (optional)")
    if prop.description then
      label = label .. " — " .. prop.description
    end
    local opts = choices(prop)
    if opts then
      vim.ui.select(opts, {
        prompt = req.message .. "\n" .. label .. ":",
        format_item = function(o)
          return o.label
        end,
      }, function(o)
        if not o then
          return reply(key, { action = "cancel" })
        end
        content[name] = o.value
        next_field()
      end)
    else
      vim.ui.input({ prompt = label .. ": ", default = prop.default and tostring(prop.default) or nil }, function(v)
        if v == nil then
          return reply(key, { action = "cancel" })
        end
        if v == "" and not required[name] then
          return next_field()
        end
        if prop.type == "number" or prop.type == "integer" then
          local n = tonumber(v)
          if not n then
            require("acpchat.util").notify("acpchat: " .. name .. " must be a number", vim.log.levels.WARN)
            i = i - 1
            return next_field()
          end
          v = prop.type == "integer" and math.floor(n) or n
        end
        content[name] = v
        next_field()
      end)
    end
  end
  next_field()
end

local function ask_url(key, req)
  vim.ui.select({ "Open in the browser", "Decline" }, {
    prompt = req.message .. "\n" .. tostring(req.url),
  }, function(_, idx)
    if idx == 1 then
      local ok = pcall(vim.ui.open, req.url)
      reply(key, ok and { action = "accept" } or { action = "cancel" })
    elseif idx == 2 then
      reply(key, { action = "decline" })
    else
      reply(key, { action = "cancel" })
    end
  end)
end

function M.ask(_, key, req)
  vim.schedule(function()
    if req.mode == "url" then
      ask_url(key, req)
    elseif req.mode == "form" then
      ask_form(key, req)
    else
      reply(key, { action = "decline" })
    end
  end)
end

--- Withdrawn: a later answer is dropped (vim.ui pickers cannot be closed from outside).
function M.close(_) end

return M
