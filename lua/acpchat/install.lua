-- :AcpChatInstall: agents from the ACP registry (|acpchat-install|). Node reads the registry
-- and installs (src/registry/); this lists, asks and reports. Installed agents live in
-- stdpath("data")/acpchat/agents/<id>/, each with a current.json that config.agents() reads.
local bridge = require("acpchat.host.bridge")
local config = require("acpchat.config")
local events = require("acpchat.app.events")
local text = require("acpchat.transcript.text")
local util = require("acpchat.util")
-- Node's events (the install's progress notes) are handled even before any chat opened.
events.register()

local M = {}

function M.dir()
  return config.agents_dir()
end

--- The ACP project's registry (https://agentclientprotocol.com/get-started/registry).
M.default_url = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

local function params(extra)
  return vim.tbl_extend("force", {
    url = config.options.registry_url or M.default_url,
    cache_file = vim.fn.stdpath("cache") .. "/acpchat/registry.json",
    dir = M.dir(),
  }, extra or {})
end

--- The installed agents (their current.json), read at once: no Node, no waiting.
function M.installed()
  return config.installed_agents()
end

local function label(a)
  local mark = a.installed
      and (a.installed == a.version and " [installed]" or (" [installed " .. text.flat(a.installed, 20) .. ", update available]"))
    or ""
  local why = a.method == "none" and ("  (cannot be installed here: " .. text.flat(a.why or "", 120) .. ")") or ""
  return string.format(
    "%s %s%s — %s%s",
    text.flat(a.name, 60),
    text.flat(a.version, 30),
    mark,
    text.flat(a.description or "", 100),
    why
  )
end

local function install(a)
  bridge.call("registry_install", params({ id = a.id }), function(err, r)
    ---@cast r acpchat.reply.RegistryInstall
    if err then
      return util.notify("acpchat: installing " .. text.flat(a.name, 60) .. " failed: " .. err, vim.log.levels.ERROR)
    end
    util.notify(
      string.format(
        "acpchat: installed %s %s: :AcpChat %s starts it%s",
        text.flat(r.name, 60),
        text.flat(r.version, 30),
        r.id,
        type(r.sha256) == "string" and (" (archive sha256 " .. text.flat(r.sha256, 64) .. ")") or ""
      )
    )
  end)
end

local function remove(a)
  bridge.call("registry_remove", { dir = M.dir(), id = a.id }, function(err)
    util.notify(
      err and ("acpchat: " .. err) or ("acpchat: removed " .. text.flat(a.name, 60)),
      err and vim.log.levels.ERROR or nil
    )
  end)
end

--- What to do with one agent: install, update, or (installed) remove.
local function act(a, update)
  if a.method == "none" then
    return util.notify(
      "acpchat: " .. text.flat(a.name, 60) .. " cannot be installed here: " .. text.flat(a.why or "", 200),
      vim.log.levels.WARN
    )
  end
  if not a.installed then
    return install(a)
  end
  if update then
    if a.installed == a.version then
      return util.notify(
        "acpchat: " .. text.flat(a.name, 60) .. " " .. text.flat(a.version, 30) .. " is installed and up to date"
      )
    end
    return install(a)
  end
  local choices =
    { a.installed ~= a.version and ("Update to " .. text.flat(a.version, 30)) or nil, "Remove it", "Cancel" }
  choices = vim.tbl_filter(function(c)
    return c ~= nil
  end, choices)
  vim.ui.select(
    choices,
    { prompt = text.flat(a.name, 60) .. " " .. text.flat(a.installed, 30) .. " is installed:" },
    function(c)
      if c and c:match("^Update") then
        install(a)
      elseif c == "Remove it" then
        remove(a)
      end
    end
  )
end

--- :AcpChatInstall[!] [id]: the registry's agents to pick from (or `id` directly); ! updates.
function M.pick(id, update)
  bridge.call("registry_list", params(), function(err, r)
    ---@cast r acpchat.reply.RegistryList
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    if r.problem then
      util.notify("acpchat: " .. r.problem, vim.log.levels.WARN)
    end
    if id then
      for _, a in ipairs(r.agents) do
        if a.id == id then
          return act(a, update)
        end
      end
      -- An entry the host refused (a version that is no version, a bad sha256...) says why.
      for _, s in ipairs(r.skipped or {}) do
        if vim.startswith(s, id .. ": ") then
          return util.notify(
            "acpchat: the registry's entry for "
              .. text.flat(id, 60)
              .. " cannot be installed: "
              .. text.flat(s:sub(#id + 3), 300),
            vim.log.levels.ERROR
          )
        end
      end
      return util.notify("acpchat: the registry has no agent " .. text.flat(id, 60), vim.log.levels.WARN)
    end
    if #(r.skipped or {}) > 0 then
      -- Entries refused (a version that is a path, a bad sha256...) are not offered: said once.
      util.notify(
        "acpchat: the registry's entries not offered: " .. text.flat(table.concat(r.skipped, "; "), 400),
        vim.log.levels.WARN
      )
    end
    if #r.agents == 0 then
      return util.notify("acpchat: the registry lists no agents", vim.log.levels.WARN)
    end
    vim.ui.select(r.agents, {
      prompt = update and "Update an agent from the ACP registry:" or "Install an agent from the ACP registry:",
      format_item = label,
      kind = "acpchat_install",
    }, function(a)
      if a then
        act(a, update)
      end
    end)
  end)
end

--- :checkhealth: installed agents, and what could be installed here.
function M.health(health)
  health.start("acp-chat.nvim: agents from the registry")
  local list = M.installed()
  if #list == 0 then
    health.info("none installed (:AcpChatInstall lists the registry's agents)")
  end
  for _, a in ipairs(list) do
    local ok = vim.fn.executable(a.command) == 1
    local line = string.format("%s %s (%s): %s", a.id, a.version, a.kind, a.command)
    if type(a.sha256) == "string" then
      line = line .. " (archive sha256 " .. text.flat(a.sha256, 64) .. ")"
    end
    if ok then
      health.ok(line)
    else
      health.error(line .. " is missing: :AcpChatInstall! " .. a.id .. " installs it again")
    end
  end
  local uname = vim.uv.os_uname()
  health.info(
    string.format(
      "this machine: %s-%s; npm %s; uv %s (npm agents need npm, uvx agents need uv, binary agents need an archive for this platform)",
      uname.sysname:lower(),
      uname.machine,
      vim.fn.executable("npm") == 1 and "found" or "not found",
      vim.fn.executable("uv") == 1 and "found" or "not found"
    )
  )
  health.info("registry: " .. (config.options.registry_url or M.default_url))
end

return M
