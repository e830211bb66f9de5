-- The review's hunk application (lua/acpchat/ask/review.lua) in the one convention Node computes:
-- { old_start, old_count, new_start, new_count }, 0-based, applied with nvim_buf_set_lines.
-- Whatever the order hunks are accepted and rejected in, the result buffer is the old text with
-- exactly the accepted hunks applied (inserted lines land where the proposal has them).
local review = require("acpchat.ask.review")
local I = review._internal

--- The reference: old lines with the accepted hunks applied, built front to back.
local function compose(current, proposed, hunks, accepted)
  local out, pos = {}, 0
  for i, h in ipairs(hunks) do
    for k = pos + 1, h.old_start do
      out[#out + 1] = current[k]
    end
    if accepted[i] then
      for k = h.new_start + 1, h.new_start + h.new_count do
        out[#out + 1] = proposed[k]
      end
    else
      for k = h.old_start + 1, h.old_start + h.old_count do
        out[#out + 1] = current[k]
      end
    end
    pos = h.old_start + h.old_count
  end
  for k = pos + 1, #current do
    out[#out + 1] = current[k]
  end
  return out
end

local function review_of(current, proposed, hunks)
  local r = { current = current, proposed = proposed, hunks = hunks, accepted = {}, result_count = #current }
  r.left = I.new_scratch("acpchat://spec/" .. tostring(vim.uv.hrtime()))
  vim.bo[r.left].modifiable = true
  vim.api.nvim_buf_set_lines(r.left, 0, -1, false, current)
  vim.bo[r.left].modifiable = false
  return r
end

local function result(r)
  if r.result_count == 0 then
    return {}
  end
  return vim.api.nvim_buf_get_lines(r.left, 0, -1, false)
end

local cases = {
  {
    name = "an insertion after line 1 lands after line 1",
    current = { "1", "2", "3" },
    proposed = { "1", "new", "2", "3" },
    hunks = { { old_start = 1, old_count = 0, new_start = 1, new_count = 1 } },
  },
  {
    name = "insert at the top, change in the middle, delete at the end, next to each other",
    current = { "a", "b", "c", "d", "e" },
    proposed = { "top", "a", "B", "C", "d" },
    hunks = {
      { old_start = 0, old_count = 0, new_start = 0, new_count = 1 },
      { old_start = 1, old_count = 2, new_start = 2, new_count = 2 },
      { old_start = 4, old_count = 1, new_start = 5, new_count = 0 },
    },
  },
  {
    name = "an empty file gets lines",
    current = {},
    proposed = { "x", "y" },
    hunks = { { old_start = 0, old_count = 0, new_start = 0, new_count = 2 } },
  },
  {
    name = "every line deleted",
    current = { "x", "y" },
    proposed = {},
    hunks = { { old_start = 0, old_count = 2, new_start = 0, new_count = 0 } },
  },
  {
    name = "adjacent insertion and deletion",
    current = { "1", "2", "3", "4" },
    proposed = { "1", "ins", "3", "4", "end" },
    hunks = {
      { old_start = 1, old_count = 1, new_start = 1, new_count = 1 },
      { old_start = 4, old_count = 0, new_start = 4, new_count = 1 },
    },
  },
}

describe("review hunks", function()
  for _, c in ipairs(cases) do
    it(c.name .. ": every accept/reject order gives the reference result", function()
      math.randomseed(42)
      for _ = 1, 60 do
        local r = review_of(c.current, c.proposed, c.hunks)
        local want = {}
        for _ = 1, 8 do
          local i = math.random(#c.hunks)
          local accept = math.random() < 0.6
          I.set_hunk(r, i, accept, I.result_rows(r))
          want[i] = accept or nil
          eq(compose(c.current, c.proposed, c.hunks, want), result(r))
        end
        -- All accepted, bottom up (gA): the proposal; all rejected (gR): the original.
        local rows = I.result_rows(r)
        for i = #c.hunks, 1, -1 do
          I.set_hunk(r, i, true, rows)
        end
        eq(c.proposed, result(r))
        rows = I.result_rows(r)
        for i = #c.hunks, 1, -1 do
          I.set_hunk(r, i, false, rows)
        end
        eq(c.current, result(r))
        vim.api.nvim_buf_delete(r.left, { force = true })
      end
    end)
  end
end)
