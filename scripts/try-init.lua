-- Loads acp-chat.nvim from this checkout for scripts/try.sh, in one of two ways:
--   isolated (ACPCHAT_TRY_ISOLATED=1): the whole config (-u), with only this plugin;
--   with your config: run after it (-c), adds the checkout and leaves your setup() alone.
local root = vim.env.ACPCHAT_TRY_ROOT or vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")

-- Plugin managers may have replaced 'runtimepath' since try.sh prepended the checkout.
if not vim.tbl_contains(vim.api.nvim_list_runtime_paths(), root) then
  vim.opt.rtp:prepend(root)
end

if vim.env.ACPCHAT_TRY_ISOLATED then
  vim.opt.termguicolors = true
  vim.cmd.source(root .. "/plugin/acpchat.lua")
  -- Your agents go here; presets (claude-agent-acp, gemini, codex-acp, opencode, goose) are used
  -- when their command is on PATH.
  require("acpchat").setup({})
  return
end

-- Your config may install acp-chat.nvim itself: then that copy may answer instead of this one.
local other = vim.tbl_filter(function(f)
  return not vim.startswith(f, root .. "/")
end, vim.api.nvim_get_runtime_file("lua/acpchat/init.lua", true))
if #other > 0 then
  vim.notify(
    "acpchat: your config also installs acp-chat.nvim ("
      .. vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(other[1])))
      .. "); that copy may be used instead of this checkout",
    vim.log.levels.WARN
  )
end
if not vim.g.loaded_acpchat then
  vim.cmd.source(root .. "/plugin/acpchat.lua")
end
