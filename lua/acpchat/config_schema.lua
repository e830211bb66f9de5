-- The language config.lua's schema is written in, and the check of options against it: node
-- constructors (values, records, maps, lists) and the resolver that keeps what is valid,
-- reports every problem with its dotted path, and fills in defaults.
local M = {}

-- Schema nodes. Four kinds:
--   value   a leaf: `expect` (what messages and the manual say it must be), `types` (the Lua
--           types it may have: a value of another type is reported by its type, a value of
--           the right type but wrong content is shown itself), `test`, `default`.
--   record  a table with known keys: `fields` is an ordered list of { name, node }.
--   map     a table of name -> `values` node (agents, env).
--   list    a list of `items` nodes.
-- Every node has `desc` (one paragraph for the manual). Optional: `required` (nil is a
-- problem), `default_text` (how the manual shows the default), `example` (lines of Lua for
-- the manual), `tag` (help tag instead of acpchat-<path>; false for none).
-- `atomic` marks containers that are all-or-nothing: a problem anywhere inside drops the
-- whole thing. Lists are always atomic (a partial argv or a permission rule list missing a
-- "reject" would do something the user never asked for); so are agents and their env.

--- A value node: `expect` for messages and the manual, the Lua `types` it may have, `test`.
function M.leaf(expect, types, test, o)
  o.kind, o.expect, o.types, o.test = "value", expect, types, test
  return o
end

local function is(t)
  return function(v)
    return type(v) == t
  end
end

function M.str(o)
  return M.leaf("string", { "string" }, is("string"), o)
end

function M.nonempty(o)
  return M.leaf("non-empty string", { "string" }, function(v)
    return type(v) == "string" and v ~= ""
  end, o)
end

function M.bool(o)
  return M.leaf("boolean", { "boolean" }, is("boolean"), o)
end

--- A number above `min` (or at least `min` with `inclusive`), optionally whole.
function M.num(o)
  local expect = (o.integer and "integer" or "number") .. (o.inclusive and " >= " or " > ") .. o.min
  return M.leaf(expect, { "number" }, function(v)
    if type(v) ~= "number" or (o.integer and v % 1 ~= 0) then
      return false
    end
    return o.inclusive and v >= o.min or v > o.min
  end, o)
end

function M.one_of(values, o)
  local shown = vim.tbl_map(function(v)
    return string.format("%q", v)
  end, values)
  return M.leaf("one of " .. table.concat(shown, ", "), { "string" }, function(v)
    return vim.tbl_contains(values, v)
  end, o)
end

--- A key sequence, or false to leave the key unmapped.
function M.key(default, desc)
  return M.leaf("string or false", { "string", "boolean" }, function(v)
    return type(v) == "string" or v == false
  end, { default = default, desc = desc })
end

function M.record(fields, o)
  o = o or {}
  o.kind, o.fields = "record", fields
  return o
end

function M.map(values, o)
  o.kind, o.values = "map", values
  return o
end

function M.list(items, o)
  o.kind, o.items, o.atomic = "list", items, true
  return o
end

--- The value a node stands for when the user gave none (or a wrong one).
function M.default_of(node)
  if node.kind == "record" then
    local out = {}
    for _, f in ipairs(node.fields) do
      out[f[1]] = M.default_of(f[2])
    end
    return out
  end
  return vim.deepcopy(node.default)
end

local function join(path, k)
  if type(k) == "number" then
    return path .. "[" .. k .. "]"
  end
  return path == "" and tostring(k) or path .. "." .. tostring(k)
end

--- What the user gave, as a message shows it: the type when the type is wrong, else the value.
local function shown(node, v)
  if node.types and vim.tbl_contains(node.types, type(v)) then
    local s = vim.inspect(v)
    return #s > 40 and s:sub(1, 37) .. "..." or s
  end
  return type(v)
end

--- Edit distance, for "did you mean" on unknown keys.
local function distance(a, b)
  local prev = {}
  for j = 0, #b do
    prev[j] = j
  end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

local function unknown(node, k)
  local best, best_d
  if type(k) == "string" then
    for _, f in ipairs(node.fields) do
      local d = distance(k:lower(), f[1])
      if d <= math.max(1, math.floor(#f[1] / 3)) and (not best_d or d < best_d) then
        best, best_d = f[1], d
      end
    end
  end
  return "unknown option" .. (best and (" (did you mean " .. best .. "?)") or "")
end

local function sorted_keys(t)
  local keys = vim.tbl_keys(t)
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then
      return type(a) == "number"
    end
    return a < b
  end)
  return keys
end

local function is_list(t)
  return vim.islist(t)
end

--- Check `v` against `node`. Returns the value to use (nil when `v` is dropped: the caller uses
--- the default, or leaves a map entry out) and whether everything inside was valid.
--- Problems are appended to `problems` as "path: what".
function M.resolve(node, v, path, problems)
  -- JSON null (a config read from JSON) means "not set", like nil.
  if v == nil or v == vim.NIL then
    if node.required then
      problems[#problems + 1] = string.format("%s: missing (expected %s)", path, node.expect)
      return nil, false
    end
    return M.default_of(node), true
  end
  if node.kind == "value" then
    if node.test(v) then
      return v, true
    end
    problems[#problems + 1] = string.format("%s: expected %s, got %s", path, node.expect, shown(node, v))
    return nil, false
  end
  local expect = node.expect or "table"
  if type(v) ~= "table" or (node.kind == "list" and not is_list(v)) then
    problems[#problems + 1] = string.format("%s: expected %s, got %s", path, expect, type(v))
    return nil, false
  end
  local out, clean = {}, true
  if node.kind == "record" then
    local known = {}
    for _, f in ipairs(node.fields) do
      local name, child = f[1], f[2]
      known[name] = true
      local x, ok = M.resolve(child, v[name], join(path, name), problems)
      if x == nil then
        x = M.default_of(child)
      end
      out[name], clean = x, clean and ok
    end
    for _, k in ipairs(sorted_keys(v)) do
      if not known[k] then
        problems[#problems + 1] = join(path, k) .. ": " .. unknown(node, k)
        clean = false
      end
    end
  elseif node.kind == "map" then
    for _, k in ipairs(sorted_keys(v)) do
      if type(k) ~= "string" then
        problems[#problems + 1] = string.format("%s: expected %s, got a list entry", join(path, k), expect)
        clean = false
      else
        local x, ok = M.resolve(node.values, v[k], join(path, k), problems)
        out[k], clean = x, clean and ok
      end
    end
  else -- list
    for i, item in ipairs(v) do
      local x, ok = M.resolve(node.items, item, join(path, i), problems)
      out[i], clean = x, clean and ok
    end
  end
  -- A record's own rule across its fields (checked when every field is valid).
  if clean and node.check then
    local problem = node.check(out)
    if problem then
      problems[#problems + 1] = string.format("%s: %s", path, problem)
      clean = false
    end
  end
  if node.atomic and not clean then
    return nil, false
  end
  return out, clean
end

return M
