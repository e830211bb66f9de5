-- The transcript reads as markdown: treesitter when the parser is there, else Vim's syntax.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1
if not pcall(vim.treesitter.start, 0, "markdown") then
  vim.cmd("runtime! syntax/markdown.vim")
end
