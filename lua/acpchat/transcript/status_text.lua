-- The chat's status in words: the state and activity words, and the transcript's winbar (agent,
-- state, mode, model, context use). Pure, as text.lua's builders are.
local M = {}

local function human(n)
  if n >= 1000000 then
    return string.format("%.1fM", n / 1000000)
  elseif n >= 1000 then
    return string.format("%.0fk", n / 1000)
  end
  return tostring(n)
end

M.state_word = {
  starting = "starting…",
  signing_in = "signing in…",
  ready = "ready",
  cancelling = "cancelling…",
  crashed = "crashed",
  closed = "closed",
}

M.activity_word = {
  prompting = "thinking…",
  streaming = "streaming…",
  waiting_permission = "needs permission",
  still_working = "still working…",
}

--- The state in a word or two ("streaming…", "crashed: exit 1").
function M.state_text(s)
  local word = s.state == "running" and (M.activity_word[s.activity] or "running")
    or (M.state_word[s.state] or s.state or "starting…")
  if s.state == "crashed" and s.reason then
    word = word .. ": " .. vim.split(s.reason, "\n", { plain = true })[1]
  end
  if s.background and s.background > 0 then
    word = word .. string.format(" · %d in the background", s.background)
  end
  if s.queued and #s.queued > 0 then
    word = word .. string.format(" · %d queued", #s.queued)
  end
  return word
end

local function truncate(str, width)
  if vim.fn.strdisplaywidth(str) <= width then
    return str
  end
  local out = vim.fn.strcharpart(str, 0, math.max(0, width - 1))
  while vim.fn.strdisplaywidth(out) > width - 1 and #out > 0 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  return out .. "…"
end

--- The winbar text for a status (already escaped for 'winbar'). Agent and state always show;
--- the details (title, mode, model, usage) are dropped from the end when `width` is short.
function M.winbar(s, width)
  if not s then
    return "acpchat"
  end
  width = width or math.huge
  local sep = " │ "
  local head = (s.agent or "agent") .. sep .. M.state_text(s)
  local details = {}
  if s.title and s.title ~= "" then
    -- One line, whatever the agent sent (a title with a line break drew the break).
    details[#details + 1] = vim.trim((s.title:gsub("%s+", " ")))
  end
  if s.mode then
    details[#details + 1] = "mode: " .. s.mode
  end
  if s.model then
    details[#details + 1] = "model: " .. s.model
  end
  if s.usage and s.usage.size and s.usage.size > 0 then
    local u = string.format(
      "ctx %s/%s (%d%%)",
      human(s.usage.used),
      human(s.usage.size),
      math.floor(100 * s.usage.used / s.usage.size)
    )
    if s.usage.cost and s.usage.cost.amount then
      u = u .. string.format(" %.2f %s", s.usage.cost.amount, s.usage.cost.currency)
    end
    details[#details + 1] = u
  end
  local text = truncate(head, width)
  for _, d in ipairs(details) do
    local next_text = text .. sep .. d
    if vim.fn.strdisplaywidth(next_text) > width then
      break
    end
    text = next_text
  end
  return (text:gsub("%%", "%%%%"))
end

return M
