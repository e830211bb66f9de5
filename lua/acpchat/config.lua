-- Configuration: defaults, presets for common agents, and validation with dotted-path messages
-- ("acpchat: agents.claude.command: expected string, got number").
local M = {}

--- Agents we know how to start; used when their command is on PATH (or configured).
M.presets = {
  -- The adapter was renamed; the older name is still found.
  claude = { command = "claude-agent-acp", alternatives = { "claude-code-acp" }, args = {}, install = "npm install -g @zed-industries/claude-agent-acp" },
  gemini = { command = "gemini", args = { "--acp" }, install = "npm install -g @google/gemini-cli" },
  codex = { command = "codex-acp", args = {}, install = "npm install -g @zed-industries/codex-acp" },
  opencode = { command = "opencode", args = { "acp" }, install = "npm install -g opencode-ai" },
  goose = { command = "goose", args = { "acp" }, install = "see https://block.github.io/goose/docs/getting-started/installation" },
}

M.defaults = {
  agents = {}, -- name -> { command = string, args = string[], env = table<string,string>, cwd = string? }
  default_agent = nil, -- name; else the first preset found on PATH
  layout = {
    position = "right", -- "right" | "left" | "top" | "bottom" | "float"
    size = 0.4, -- columns/rows, or a fraction of the editor when < 1
    prompt_height = 5,
  },
  keymaps = {
    send = "<CR>", -- normal mode, prompt buffer
    send_insert = "<C-s>", -- insert mode, prompt buffer
    cancel = "<C-c>",
    hide = "q",
    next_turn = "]]",
    prev_turn = "[[",
    open_location = "gf",
    show_diff = "gd",
    show_terminal = "gt",
  },
  timeouts = {
    initialize_ms = 60000,
    new_session_ms = 120000, -- generous: some agents sign in here
    cancel_ms = 10000,
  },
  fs = {
    max_read_bytes = 10 * 1024 * 1024,
    extra_roots = {}, -- directories besides the cwd the agent may touch
  },
  log_dir = nil, -- default: stdpath("log")/acpchat
  frame_ms = 16,
  -- How the agent's writes reach your files: "review" (diff first), "buffer" (into the buffer,
  -- you save), "save" (into the buffer and written). A buffer with your unsaved edits is
  -- always reviewed.
  write = "review",
  -- Show the locations of running tool calls in the last editor window as the agent works.
  follow = false,
  permissions = {
    -- Answered without asking: { kind = "read", path = "**", action = "allow" } allows reads
    -- anywhere inside the cwd. Fields: kind ("*" for any), tool (name or title), path (glob
    -- relative to the cwd, every location must match), action ("allow" | "reject").
    rules = {},
  },
}

local function typename(v)
  return type(v)
end

local function err(path, expected, v)
  return string.format("acpchat: %s: expected %s, got %s", path, expected, typename(v))
end

local function check_string_list(path, v)
  if type(v) ~= "table" then
    return err(path, "list of strings", v)
  end
  for i, x in ipairs(v) do
    if type(x) ~= "string" then
      return err(path .. "[" .. i .. "]", "string", x)
    end
  end
end

local function check_agent(path, a)
  if type(a) ~= "table" then
    return err(path, "table", a)
  end
  if type(a.command) ~= "string" or a.command == "" then
    return err(path .. ".command", "non-empty string", a.command)
  end
  if a.args ~= nil then
    local e = check_string_list(path .. ".args", a.args)
    if e then
      return e
    end
  end
  if a.env ~= nil then
    if type(a.env) ~= "table" then
      return err(path .. ".env", "table of strings", a.env)
    end
    for k, v in pairs(a.env) do
      if type(k) ~= "string" or type(v) ~= "string" then
        return err(path .. ".env." .. tostring(k), "string", v)
      end
    end
  end
  if a.cwd ~= nil and type(a.cwd) ~= "string" then
    return err(path .. ".cwd", "string", a.cwd)
  end
  for _, k in ipairs({ "mode", "model" }) do
    if a[k] ~= nil and type(a[k]) ~= "string" then
      return err(path .. "." .. k, "string", a[k])
    end
  end
  if a.options ~= nil and type(a.options) ~= "table" then
    return err(path .. ".options", "table", a.options)
  end
end

--- Validate user options; returns an error message or nil.
function M.validate(opts)
  if opts == nil then
    return nil
  end
  if type(opts) ~= "table" then
    return err("setup()", "table", opts)
  end
  local known = vim.list_extend(vim.tbl_keys(M.defaults), { "default_agent", "log_dir" })
  for k in pairs(opts) do
    if not vim.tbl_contains(known, k) then
      return string.format("acpchat: %s: unknown option", k)
    end
  end
  if opts.agents ~= nil then
    if type(opts.agents) ~= "table" then
      return err("agents", "table", opts.agents)
    end
    for name, a in pairs(opts.agents) do
      local e = check_agent("agents." .. tostring(name), a)
      if e then
        return e
      end
    end
  end
  if opts.default_agent ~= nil and type(opts.default_agent) ~= "string" then
    return err("default_agent", "string", opts.default_agent)
  end
  if opts.permissions ~= nil then
    if type(opts.permissions) ~= "table" then
      return err("permissions", "table", opts.permissions)
    end
    for i, r in ipairs(opts.permissions.rules or {}) do
      local path = "permissions.rules[" .. i .. "]"
      if type(r) ~= "table" then
        return err(path, "table", r)
      end
      if r.action ~= "allow" and r.action ~= "reject" then
        return "acpchat: " .. path .. ".action: expected \"allow\" or \"reject\""
      end
      for _, f in ipairs({ "kind", "tool", "path" }) do
        if r[f] ~= nil and type(r[f]) ~= "string" then
          return err(path .. "." .. f, "string", r[f])
        end
      end
    end
  end
  for _, section in ipairs({ "layout", "keymaps", "timeouts", "fs" }) do
    local v = opts[section]
    if v ~= nil then
      if type(v) ~= "table" then
        return err(section, "table", v)
      end
      for k, x in pairs(v) do
        local d = M.defaults[section][k]
        if d == nil then
          return string.format("acpchat: %s.%s: unknown option", section, k)
        end
        if type(x) ~= type(d) and not (section == "keymaps" and x == false) then
          return err(section .. "." .. k, type(d), x)
        end
      end
    end
  end
  if opts.layout and opts.layout.position then
    local ok = vim.tbl_contains({ "right", "left", "top", "bottom", "float" }, opts.layout.position)
    if not ok then
      return "acpchat: layout.position: expected one of right, left, top, bottom, float"
    end
  end
  if opts.fs and opts.fs.extra_roots then
    local e = check_string_list("fs.extra_roots", opts.fs.extra_roots)
    if e then
      return e
    end
  end
  if opts.write ~= nil and not vim.tbl_contains({ "review", "buffer", "save" }, opts.write) then
    return "acpchat: write: expected one of review, buffer, save"
  end
  if opts.follow ~= nil and type(opts.follow) ~= "boolean" then
    return err("follow", "boolean", opts.follow)
  end
  if opts.frame_ms ~= nil and type(opts.frame_ms) ~= "number" then
    return err("frame_ms", "number", opts.frame_ms)
  end
  if opts.log_dir ~= nil and type(opts.log_dir) ~= "string" then
    return err("log_dir", "string", opts.log_dir)
  end
end

M.options = vim.deepcopy(M.defaults)

function M.set(opts)
  local e = M.validate(opts)
  if e then
    return false, e
  end
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists replace, not merge.
  if opts and opts.agents then
    M.options.agents = opts.agents
  end
  return true
end

--- All agents: configured ones, plus presets whose command is on PATH.
function M.agents()
  local out = {}
  for name, p in pairs(M.presets) do
    for _, cmd in ipairs(vim.list_extend({ p.command }, p.alternatives or {})) do
      if vim.fn.executable(cmd) == 1 then
        out[name] = { command = cmd, args = p.args }
        break
      end
    end
  end
  for name, a in pairs(M.options.agents) do
    out[name] = a
  end
  return out
end

function M.agent_names()
  local names = vim.tbl_keys(M.agents())
  table.sort(names)
  return names
end

--- The agent to use when none is named: default_agent, else the only/first available.
function M.default_agent()
  if M.options.default_agent then
    return M.options.default_agent
  end
  return M.agent_names()[1]
end

function M.log_dir()
  return M.options.log_dir or (vim.fn.stdpath("log") .. "/acpchat")
end

--- What to tell a user who has no agent at all.
function M.install_hint()
  local lines = { "acpchat: no agent found. Install one, or configure `agents` in require('acpchat').setup():" }
  local names = vim.tbl_keys(M.presets)
  table.sort(names)
  for _, name in ipairs(names) do
    local p = M.presets[name]
    lines[#lines + 1] = string.format("  %s: %s (needs `%s` on PATH)", name, p.install, p.command)
  end
  return table.concat(lines, "\n")
end

return M
