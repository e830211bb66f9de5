-- Which of a session's files match what follows `@`, best first, as fuzzy pickers rank: the
-- list comes from acpchat.complete.project_files; matching it runs in slices of a few
-- milliseconds (or in one bounded pass for the omnifunc), so the editor answers meanwhile.
local project_files = require("acpchat.complete.project_files")

local M = {}

local function now_ms()
  return vim.uv.hrtime() / 1e6
end

--- Paths of `files` that match `prefix`, best first, at most `limit`: those that start with it,
--- then those whose name starts with it, then those that contain it, then those that hold its
--- characters in order (as fuzzy pickers match: `pmlua` finds `src/permission.lua`), ignoring
--- case when the prefix is all lowercase; with no prefix, the top folder's files first; each
--- group in alphabetical order. Runs in slices of about `slice_ms` milliseconds with the editor running
--- between them; `cb(paths, truncated)` at the end (truncated: more would match). `opts.sync`:
--- one pass without yielding (the omnifunc), stopping after `opts.budget_ms`.
function M.match(files, prefix, limit, cb, opts)
  opts = opts or {}
  local slice_ms = opts.slice_ms or 4
  local lp = prefix == prefix:lower() and prefix or nil
  -- Each group keeps at most `limit` (the rest would never be shown): sorting stays cheap.
  local tiers = { {}, {}, {}, {} }
  -- Its characters in order, anything between them: found greedily, one plain find each (a
  -- pattern of `.-` would backtrack without bound on a near miss).
  local chars = {}
  for ch in (lp or prefix):gmatch(".") do
    chars[#chars + 1] = ch
  end
  local function in_order(g)
    local at = 0
    for k = 1, #chars do
      at = g:find(chars[k], at + 1, true)
      if not at then
        return false
      end
    end
    return true
  end
  local more = false
  local n = #files
  local i = 1
  local started = now_ms()
  local function add(t, f)
    local tier = tiers[t]
    if #tier < limit then
      tier[#tier + 1] = f
    else
      more = true
    end
  end
  local function step()
    local t0, c0 = now_ms(), project_files.cpu_ms()
    local count = 0
    while i <= n do
      local f = files[i]
      i = i + 1
      if prefix == "" then
        add(f:find("/", 1, true) and 2 or 1, f)
      elseif f:sub(1, #prefix) == prefix then
        add(1, f)
      else
        local g = lp and f:lower() or f
        local at = g:find(lp or prefix, 1, true)
        if at then
          add(at == g:match("()[^/]*$") and 2 or 3, f)
        elseif in_order(g) then
          add(4, f)
        end
      end
      if #tiers[1] >= limit and i <= n then
        -- The best group is full: nothing further down the list could be shown.
        more = true
        break
      end
      count = count + 1
      if count % 512 == 0 then
        local t = now_ms()
        if opts.sync then
          if opts.budget_ms and t - started > opts.budget_ms then
            more = more or i <= n
            break
          end
        elseif t - t0 > slice_ms then
          project_files.note_busy(c0)
          return vim.schedule(step)
        end
      end
    end
    local out = {}
    for _, tier in ipairs(tiers) do
      table.sort(tier, function(a, b)
        local la, lb = a:lower(), b:lower()
        if la ~= lb then
          return la < lb
        end
        return a < b
      end)
      for _, f in ipairs(tier) do
        if #out >= limit then
          return cb(out, true)
        end
        out[#out + 1] = f
      end
    end
    if not opts.sync then
      project_files.note_busy(c0)
    end
    cb(out, more)
  end
  step()
end

return M
