-- Minimal init for end-to-end tests: the plugin from this checkout, nothing else.
-- ACPCHAT_TEST_SETUP (JSON) is passed to require("acpchat").setup().
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
vim.opt.rtp:prepend(root)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.cmd("runtime plugin/acpchat.lua")
local setup = vim.env.ACPCHAT_TEST_SETUP
if setup and setup ~= "" then
  require("acpchat").setup(vim.json.decode(setup))
end
