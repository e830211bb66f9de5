-- :checkhealth acpchat
local M = {}

function M.check()
  local health = vim.health
  local host = require("acpchat.host")
  local config = require("acpchat.config")

  health.start("acp-chat.nvim: Node and the remote plugin")
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  if vim.fn.executable("node") == 0 then
    health.error("`node` is not on PATH", { "Install Node.js 20 or newer" })
  else
    local v = vim.trim(vim.fn.system({ "node", "--version" }))
    local major = tonumber(v:match("^v(%d+)"))
    if major and major >= 20 then
      health.ok("Node " .. v)
    else
      health.error("Node " .. v .. " is too old", { "Install Node.js 20 or newer" })
    end
  end
  local prog = vim.g.node_host_prog
  if prog and vim.uv.fs_stat(vim.fn.expand(prog)) then
    health.ok("node host: " .. prog)
  else
    health.error("node host not found (g:node_host_prog = " .. tostring(prog) .. ")", { "Run `npm ci` in " .. host.root })
  end
  if vim.uv.fs_stat(host.bundle) then
    health.ok("remote plugin built: " .. host.bundle)
  else
    health.error("remote plugin not built", { "Run `npm ci && npm run build` in " .. host.root })
  end
  if host.error then
    health.error(host.error)
  else
    health.ok("remote plugin registered (" .. tostring(host.how) .. ")")
  end

  health.start("acp-chat.nvim: agents")
  local agents = config.agents()
  if next(agents) == nil then
    health.warn("no agent configured or found on PATH", vim.split(config.install_hint(), "\n"))
  end
  local names = vim.tbl_keys(agents)
  table.sort(names)
  for _, name in ipairs(names) do
    local a = agents[name]
    if vim.fn.executable(a.command) == 1 then
      health.ok(string.format("%s: `%s` found (%s)", name, a.command, vim.fn.exepath(a.command)))
    else
      health.error(string.format("%s: `%s` not found on PATH", name, a.command))
    end
  end
  local def = config.default_agent()
  if def then
    health.info("default agent: " .. def)
  end

  health.start("acp-chat.nvim: logs")
  health.info("JSON-RPC traces: " .. config.log_dir())
end

return M
