-- The transcript reads as markdown. Vim's regex syntax, not treesitter: it works at redraw time
-- on what is visible, while a treesitter parse runs on every edit, which cost seconds per turn
-- with a streaming agent (bench/RESULTS.md). Users who want treesitter can start it here.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1
vim.bo.syntax = "markdown"
