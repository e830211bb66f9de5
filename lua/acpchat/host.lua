-- Registers the Node remote plugin with the 'node' host at startup, so no :UpdateRemotePlugins
-- and no global npm install are needed: the host runs the `neovim` package in our node_modules.
local M = {}

M.root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
M.rplugin = M.root .. "/rplugin/node/acpchat"
M.cli = M.root .. "/node_modules/neovim/bin/cli.js"
M.bundle = M.root .. "/dist/acpchat.cjs"

--- Whether :UpdateRemotePlugins already put us in the manifest (the classic way).
local function in_manifest()
  local manifest = vim.env.NVIM_RPLUGIN_MANIFEST or (vim.fn.stdpath("data") .. "/rplugin.vim")
  local f = io.open(manifest, "r")
  if not f then
    return false
  end
  local text = f:read("*a")
  f:close()
  return text:find(M.rplugin, 1, true) ~= nil
end

M.error = nil

function M.register()
  if vim.g.node_host_prog == nil and vim.uv.fs_stat(M.cli) then
    vim.g.node_host_prog = M.cli
  end
  if in_manifest() then
    M.how = "manifest"
    return true
  end
  for _, p in ipairs(vim.fn["remote#host#PluginsForHost"]("node")) do
    if p.path == M.rplugin then
      M.how = "registered"
      return true
    end
  end
  local ok, specs = pcall(require, "acpchat.rplugin_specs")
  if not ok then
    M.error = "the remote plugin is not built: run `npm ci && npm run build` in " .. M.root
    return false
  end
  local ok2, err = pcall(vim.fn["remote#host#RegisterPlugin"], "node", M.rplugin, specs)
  if not ok2 then
    M.error = "could not register the remote plugin: " .. tostring(err)
      .. " (if another plugin started the node host first, load acp-chat.nvim at startup or run :UpdateRemotePlugins)"
    return false
  end
  M.how = "registered"
  return true
end

return M
