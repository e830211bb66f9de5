-- Minimal init for end-to-end tests: the plugin from this checkout, nothing else.
-- ACPCHAT_TEST_SETUP (JSON) is passed to require("acpchat").setup().
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
vim.opt.rtp:prepend(root)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
-- Neovim's remote-plugin providers, which the plugin does not use (its Node host is a job of
-- its own): the Python ftplugin's has('python3') probes for a Python host, through this
-- machine's pyenv shims 30-40 s and ~10 s of CPU for each .py file a test opens.
vim.g.loaded_python3_provider = 0
vim.g.loaded_ruby_provider = 0
vim.g.loaded_perl_provider = 0
vim.g.loaded_node_provider = 0
vim.cmd("runtime plugin/acpchat.lua")
local setup = vim.env.ACPCHAT_TEST_SETUP
if setup and setup ~= "" then
  require("acpchat").setup(vim.json.decode(setup))
end
