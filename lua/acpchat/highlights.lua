-- Highlight groups, all linked with default = true so colour schemes and users can override.
-- The groups that carry meaning (statuses, notes, markers) must stay legible in every scheme:
-- each has a list of groups to link to, the first whose text contrasts enough with the
-- background wins (a scheme whose DiagnosticOk is pale green on white falls through to String,
-- and so on; Normal, the scheme's own text, always reads).
local M = {}

M.groups = {
  AcpChatTurn = "Title",
  AcpChatReply = "Title",
  AcpChatUser = "CursorLine",
  AcpChatThought = "Comment",
  AcpChatToolTitle = "Function",
  AcpChatToolPending = "Comment",
  AcpChatToolRunning = "DiagnosticWarn",
  AcpChatToolDone = "DiagnosticOk",
  AcpChatToolFailed = "DiagnosticError",
  AcpChatToolCancelled = "DiagnosticHint",
  AcpChatToolInput = "Comment",
  AcpChatToolFolded = "NonText",
  AcpChatLocation = "Directory",
  AcpChatDiffSummary = "Normal",
  AcpChatDiffAdd = "DiffAdd",
  AcpChatDiffDelete = "DiffDelete",
  AcpChatTerminal = "Comment",
  AcpChatTerminalStatus = "NonText",
  AcpChatTerminalFailed = "DiagnosticError",
  AcpChatPlanTitle = "Title",
  AcpChatPlanDone = "Comment",
  AcpChatPlanActive = "DiagnosticWarn",
  AcpChatNote = "DiagnosticInfo",
  AcpChatWarn = "DiagnosticWarn",
  AcpChatError = "DiagnosticError",
  AcpChatQueued = "Comment",
  AcpChatNewBelow = "WarningMsg",
  AcpChatAsk = "WarningMsg",
  AcpChatChanges = "Title",
  AcpChatComment = "DiagnosticInfo",
  AcpChatCommentSent = "Comment",
}

--- Groups whose text must read, with the links to try after the first.
M.legible = {
  AcpChatAsk = { "WarningMsg", "Type", "Normal" },
  AcpChatToolRunning = { "WarningMsg", "Type", "Normal" },
  AcpChatToolDone = { "String", "Statement", "Normal" },
  AcpChatToolFailed = { "WarningMsg", "Special", "Normal" },
  AcpChatToolCancelled = { "Comment", "Normal" },
  AcpChatTerminalFailed = { "WarningMsg", "Special", "Normal" },
  AcpChatPlanActive = { "WarningMsg", "Type", "Normal" },
  AcpChatNote = { "Identifier", "Normal" },
  AcpChatWarn = { "WarningMsg", "Type", "Normal" },
  AcpChatError = { "WarningMsg", "Special", "Normal" },
  AcpChatNewBelow = { "Title", "Normal" },
  AcpChatQueued = { "Special", "Normal" },
}

--- Least contrast (WCAG ratio) the text of a group in M.legible keeps with the background.
M.min_contrast = 3

local function luminance(rgb)
  local function channel(c)
    c = c / 255
    return c <= 0.03928 and c / 12.92 or ((c + 0.055) / 1.055) ^ 2.4
  end
  return 0.2126 * channel(math.floor(rgb / 65536) % 256)
    + 0.7152 * channel(math.floor(rgb / 256) % 256)
    + 0.0722 * channel(rgb % 256)
end

function M.contrast(a, b)
  local la, lb = luminance(a), luminance(b)
  return (math.max(la, lb) + 0.05) / (math.min(la, lb) + 0.05)
end

--- The background and text colours of the scheme (GUI colours; the defaults when unset).
function M.normal()
  local n = vim.api.nvim_get_hl(0, { name = "Normal", link = false })
  local light = vim.o.background == "light"
  return n.bg or (light and 0xffffff or 0x000000), n.fg or (light and 0x000000 or 0xffffff)
end

--- The text colour a group shows, following links.
function M.fg(name)
  local hl = vim.api.nvim_get_hl(0, { name = name, link = false })
  if hl.reverse then
    return hl.bg or select(1, M.normal())
  end
  return hl.fg or select(2, M.normal())
end

local function readable(name, bg)
  return M.contrast(M.fg(name), bg) >= M.min_contrast
end

function M.setup()
  local bg = M.normal()
  for group, link in pairs(M.groups) do
    local choice = link
    local fallbacks = M.legible[group]
    if fallbacks and not readable(link, bg) then
      choice = "Normal"
      for _, l in ipairs(fallbacks) do
        if readable(l, bg) then
          choice = l
          break
        end
      end
    end
    vim.api.nvim_set_hl(0, group, { link = choice, default = true })
  end
end

return M
