-- :checkhealth acpchat
local complete = require("acpchat.complete")
local media = require("acpchat.chat.media")
local changes = require("acpchat.checkpoints.changes")
local install = require("acpchat.install")
local bridge = require("acpchat.host.bridge")
local config = require("acpchat.config")
local chats = require("acpchat.app.chats")
local project = require("acpchat.chat.project")

local M = {}

function M.check()
  local health = vim.health

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
  if vim.uv.fs_stat(bridge.cli) then
    health.ok("node host: " .. bridge.cli)
  else
    health.error("the node host is not built", { "Run `npm ci && npm run build` in " .. bridge.root })
  end
  if vim.uv.fs_stat(bridge.bundle) then
    health.ok("remote plugin built: " .. bridge.bundle)
  else
    health.error("remote plugin not built", { "Run `npm ci && npm run build` in " .. bridge.root })
  end
  -- The one place that waits for the host: :checkhealth is asked for, and bounded.
  local ok, res = pcall(bridge.call_sync, "ping", {}, 5000)
  if ok then
    health.ok(string.format("Node host answers (pid %d, node %s)", res.pid, res.node))
    -- The bundle's V8 code cache (src/nvim/code-cache.ts): only the host's start is slower without it.
    if res.code_cache and res.code_cache.used then
      health.ok("code cache: " .. res.code_cache.file)
    elseif res.code_cache then
      health.info("code cache: not used at this start: " .. res.code_cache.why)
    end
    -- What reaches the processes agents and terminals start (:help acpchat-processes).
    if res.cgroups and res.cgroups.available then
      health.ok("processes: " .. res.cgroups.why .. ": every process they start, daemons included, is killed with them")
      health.info(
        "processes: the limit: a process that moves itself into a cgroup outside acp-chat's folder that your user may write (Neovim's own, another service's) is not reached; see :help acpchat-processes"
      )
    elseif res.cgroups then
      health.warn("processes: no cgroup (" .. res.cgroups.why .. ")", {
        "Agents and terminals are killed by process group and by the ACPCHAT_PROC_COOKIE variable their descendants inherit.",
        "A daemon that leaves the process group (setsid) and also clears ACPCHAT_PROC_COOKIE from its environment outlives the chat.",
        "Run Neovim in a cgroup delegated to you (e.g. `systemd-run --user --scope -p Delegate=yes nvim`) to close this gap; see :help acpchat-processes",
      })
    end
  else
    health.error("the Node host does not answer: " .. tostring(res))
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
    if a.protocol == "v2-draft" then
      health.info(
        string.format(
          '%s: offered the ACP v2 draft (protocol = "v2-draft"); spoken only if the agent answers 2, else v1 (|acpchat-acp-v2|)',
          name
        )
      )
    end
  end
  local def = config.default_agent()
  if def then
    health.info("default agent: " .. def)
  end

  for _, p in ipairs(config.problems or {}) do
    health.warn("setup(): " .. p)
  end

  health.start("acp-chat.nvim: MCP servers")
  local any = false
  local function check_servers(owner, list)
    for _, s in ipairs(list or {}) do
      any = true
      local who = owner and string.format("%s (agent %s)", s.name, owner) or s.name
      if s.type == "stdio" then
        local found = vim.fn.executable(s.command) == 1
        if found then
          health.ok(string.format("%s: stdio, `%s` found (%s)", who, s.command, vim.fn.exepath(s.command)))
        else
          health.error(string.format("%s: stdio, `%s` not found (not an executable file, nor on PATH)", who, s.command))
        end
      else
        -- Headers and env values may be secrets: only their names are shown.
        local header_names = vim.tbl_keys(s.headers or {})
        table.sort(header_names)
        health.info(
          string.format(
            "%s: %s, %s%s (passed only to agents whose mcpCapabilities.%s is true)",
            who,
            s.type,
            s.url,
            #header_names > 0 and (", headers " .. table.concat(header_names, ", ")) or "",
            s.type
          )
        )
      end
      for what, t in pairs({ env = s.env or {}, header = s.headers or {} }) do
        for name, value in pairs(t) do
          for var in value:gsub("%$%$", ""):gmatch("%$%{?([%a_][%w_]*)") do
            if vim.env[var] == nil then
              health.warn(
                string.format("%s: %s %s uses $%s, which is not set in Neovim's environment", who, what, name, var)
              )
            end
          end
        end
      end
    end
  end
  check_servers(nil, config.options.mcp_servers)
  for _, name in ipairs(names) do
    check_servers(name, agents[name].mcp_servers)
  end
  if not any then
    health.info("none configured (|acpchat-mcp|)")
  end

  M.editor_tools(health, agents, names)

  complete.check_health(health)

  health.start("acp-chat.nvim: unstable ACP additions")
  if config.options.unstable then
    health.ok(
      "on: plans by id, subagents and session messages are advertised; :AcpChatFork and renaming in :AcpChatSessions work with agents that advertise session/fork and session/set_title (|acpchat-unstable-additions|)"
    )
  else
    health.info(
      "off (unstable = false): agents' unstable updates show as unknown notes; :AcpChatFork and renaming sessions are unavailable"
    )
  end

  media.health(health)

  changes.health(health)

  M.notify(health)

  install.health(health)

  health.start("acp-chat.nvim: logs")
  health.info("JSON-RPC traces: " .. config.log_dir())
end

--- Notifications when a chat needs you (|acpchat-attention|): off, through the terminal, or a
--- command that must be on PATH.
function M.notify(health)
  health.start("acp-chat.nvim: attention")
  local o = config.options.notify or {}
  if not o.enabled then
    return health.info("notifications off (notify.enabled = false); User AcpChatAttention fires either way")
  end
  if o.method == "command" then
    local prog = (o.command or {})[1]
    if not prog or vim.fn.executable(prog) == 0 then
      return health.warn(string.format("notify.command: %s is not on PATH: no notifications", tostring(prog)))
    end
    return health.ok("notifications through " .. prog)
  end
  health.ok(
    "notifications through the terminal (OSC 777 and OSC 9)"
      .. (vim.env.TMUX and "; inside tmux they pass only with `set -g allow-passthrough on`" or "")
  )
end

--- The editor's MCP server (|acpchat-editor-tools|): on or off, for whom, whether it can run,
--- and the project file of the current directory.
function M.editor_tools(health, agents, names)
  health.start("acp-chat.nvim: editor tools")
  local o = config.options.editor_tools
  if not o.enabled then
    health.info("off (editor_tools.enabled = false)")
  else
    health.ok(
      string.format(
        'offered to agents as the MCP server "nvim": %s (answers within %d ms)',
        table.concat(o.tools, ", "),
        o.timeout_ms
      )
    )
  end
  for _, name in ipairs(names) do
    if agents[name].editor_tools == false then
      health.info(name .. ": off for this agent")
    elseif agents[name].editor_tools == "stdio" then
      health.info(name .. ': through the server process, even if it takes http (editor_tools = "stdio")')
    elseif agents[name].editor_files == false then
      health.info(name .. ": keeps its own file tools (editor_files = false)")
    end
  end
  local script = bridge.root .. "/dist/acpchat-mcp.cjs"
  if vim.uv.fs_stat(script) then
    health.ok("server script: " .. script)
  else
    health.error("the server script is missing: run `npm run build` in " .. bridge.root)
  end
  local base = vim.env.XDG_RUNTIME_DIR or vim.env.TMPDIR or "/tmp"
  if vim.fn.filewritable(base) == 2 then
    health.ok("private channels are made in " .. base .. " (a 0700 folder and a token per chat)")
  else
    health.error(base .. " is not writable: the server's private channel cannot be made")
  end
  local clients = {}
  for _, c in ipairs(vim.lsp.get_clients()) do
    if c.name ~= "acpchat" then
      clients[#clients + 1] = c.name
    end
  end
  health.info(
    #clients > 0
        and ("language servers running (definition, references, hover, symbols): " .. table.concat(clients, ", "))
      or "no language server running now: definition, references, hover and symbols need one for the file asked about"
  )
  -- The project folder a chat started here would use (root_markers), not only the current directory.
  local file = vim.fs.joinpath(chats.root(), project.FILE)
  local st = vim.uv.fs_stat(file)
  if st and (st.type ~= "file" or st.size > project.MAX_BYTES) then
    health.warn(
      file .. ": ignored (" .. (st.type ~= "file" and "not a regular file: " .. st.type or "larger than 1 MiB") .. ")"
    )
  elseif st then
    health.info(file .. ": read for chats started here once you trust it (|acpchat-project|)")
  end
end

return M
