-- Highlight groups, all linked with default = true so colour schemes and users can override.
local M = {}

M.groups = {
  AcpChatTurn = "Title",
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
}

function M.setup()
  for group, link in pairs(M.groups) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

return M
