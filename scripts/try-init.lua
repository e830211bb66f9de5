-- Config for scripts/try.sh: only this plugin, loaded from the checkout.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
vim.opt.termguicolors = true
vim.cmd("runtime plugin/acpchat.lua")
-- Your agents go here; presets (claude-agent-acp, gemini, codex-acp, opencode, goose) are used
-- when their command is on PATH.
require("acpchat").setup({})
