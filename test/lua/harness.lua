-- A minimal spec runner for the plugin's pure Lua modules (text building, config validation,
-- hunk application): no chat, no node host, no external dependencies.
--   nvim --headless -l test/lua/harness.lua test/lua/<name>_spec.lua
-- test/unit/lua-specs.test.ts runs every test/lua/*_spec.lua this way on each Neovim.
--
-- A spec file uses describe(name, fn), it(name, fn), before_each(fn) and the assertions
-- eq(expected, actual), truthy(v), matches(pattern, s) and raises(fn, pattern). Each `it` runs
-- on its own: a failure is recorded and the next one runs. The last line written to stdout is
-- "SPEC-RESULT " followed by JSON: { results = { { name, ok, err? }, ... } }. The exit code is
-- 1 when anything failed.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
vim.opt.rtp:prepend(root)
package.path = root .. "/test/lua/?.lua;" .. package.path

local results = {}
local names = {}
local hooks = { {} }

--- An error with the traceback cut down to the spec's own lines (the harness's are noise).
local function trace(err)
  local tb = debug.traceback(tostring(err), 2)
  local msg, rest = tb:match("^(.-)\nstack traceback:\n(.*)$")
  if not msg then
    return tb
  end
  local keep = {}
  for line in rest:gmatch("[^\n]+") do
    if line:find("_spec%.lua") then
      keep[#keep + 1] = line
    end
  end
  return msg .. (#keep > 0 and ("\n" .. table.concat(keep, "\n")) or "")
end

local function full_name(name)
  local parts = vim.list_extend(vim.list_slice(names), { name })
  return table.concat(parts, " > ")
end

function _G.describe(name, fn)
  names[#names + 1] = name
  hooks[#hooks + 1] = {}
  local ok, err = xpcall(fn, trace)
  if not ok then
    results[#results + 1] = { name = full_name("(describe body)"), ok = false, err = err }
  end
  hooks[#hooks] = nil
  names[#names] = nil
end

function _G.before_each(fn)
  table.insert(hooks[#hooks], fn)
end

function _G.it(name, fn)
  local ok, err = xpcall(function()
    for _, level in ipairs(hooks) do
      for _, h in ipairs(level) do
        h()
      end
    end
    fn()
  end, trace)
  results[#results + 1] = { name = full_name(name), ok = ok, err = (not ok) and tostring(err) or nil }
end

-- Assertions raise with both sides shown; level 2 points the message at the spec's line.
function _G.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(
      string.format(
        "%sexpected: %s\n  actual: %s",
        what and (what .. "\n") or "",
        vim.inspect(expected),
        vim.inspect(actual)
      ),
      2
    )
  end
end

function _G.truthy(v, what)
  if not v then
    error((what or "expected a true value") .. ", got " .. vim.inspect(v), 2)
  end
end

function _G.matches(pattern, s, what)
  if type(s) ~= "string" or not s:find(pattern) then
    error(
      string.format("%sexpected a string matching %q, got %s", what and (what .. "\n") or "", pattern, vim.inspect(s)),
      2
    )
  end
end

function _G.raises(fn, pattern)
  local ok, err = pcall(fn)
  if ok then
    error("expected an error", 2)
  end
  if pattern and not tostring(err):find(pattern) then
    error(string.format("expected an error matching %q, got %s", pattern, tostring(err)), 2)
  end
end

--- Forget a module so the next require() loads it fresh (specs that change module state).
function _G.reload(name)
  package.loaded[name] = nil
  return require(name)
end

local file = _G.arg[1]
local chunk, load_err = loadfile(file)
if not chunk then
  results[#results + 1] = { name = "(loading " .. tostring(file) .. ")", ok = false, err = load_err }
else
  local ok, err = xpcall(chunk, trace)
  if not ok then
    results[#results + 1] = { name = "(running " .. file .. ")", ok = false, err = err }
  end
end

local failed = 0
for _, r in ipairs(results) do
  if not r.ok then
    failed = failed + 1
  end
end
io.stdout:write("\nSPEC-RESULT " .. vim.json.encode({ results = results }) .. "\n")
io.stdout:flush()
os.exit(failed > 0 and 1 or 0)
