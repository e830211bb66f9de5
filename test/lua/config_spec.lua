-- lua/acpchat/config.lua: the schema checks every key, reports every problem with its dotted
-- path, keeps what is valid and falls back to the defaults for the rest.
local config

before_each(function()
  config = reload("acpchat.config")
end)

--- The problems of a validation, one per "; "-separated part, without the message's prefix.
local function problems(opts)
  local msg = config.validate(opts)
  if not msg then
    return {}
  end
  matches("^acpchat: setup%(%): ", msg)
  return vim.split(msg:gsub("^acpchat: setup%(%): ", ""), "; ", { plain = true })
end

describe("defaults", function()
  it("without setup() the options are the defaults", function()
    eq(config.defaults, config.options)
    eq("right", config.options.layout.position)
    eq({}, config.options.agents)
  end)

  it("the new keys have their documented defaults", function()
    eq(30000, config.defaults.timeouts.request_ms)
    eq(4 * 1024 * 1024, config.defaults.terminal.output_limit_bytes)
    eq(nil, config.defaults.save_dir)
    eq(vim.fn.stdpath("data") .. "/acpchat/transcripts", config.save_dir())
    eq(vim.fn.stdpath("log") .. "/acpchat", config.log_dir())
  end)

  it("set(nil) and set({}) give the defaults without a problem", function()
    eq(true, config.set(nil))
    eq(config.defaults, config.options)
    eq(true, config.set({}))
    eq(config.defaults, config.options)
  end)
end)

describe("validation", function()
  it("a valid config has no problem", function()
    eq(
      {},
      problems({
        agents = {
          ok = {
            command = "ok",
            args = { "--acp" },
            env = { A = "b" },
            cwd = "/tmp",
            mode = "ask",
            model = "m",
            options = { thinking = true, effort = "high" },
          },
        },
        default_agent = "ok",
        layout = { position = "float", size = 120, prompt_height = 3 },
        keymaps = { send = "<C-CR>", hide = false },
        write = "buffer",
        follow = true,
        permissions = { rules = { { kind = "read", path = "**", action = "allow" }, { action = "reject" } } },
        timeouts = { request_ms = 5000 },
        terminal = { output_limit_bytes = 1024 },
        fs = { extra_roots = { "/tmp" } },
        save_dir = "~/notes",
        log_dir = "/tmp/logs",
        frame_ms = 0,
      })
    )
  end)

  it("reports every mistake in one message, each with its dotted path and what was expected", function()
    eq(
      {
        "agents.claude.command: expected non-empty string, got number",
        'layout.position: expected one of "right", "left", "top", "bottom", "float", got "diagonal"',
        "layout.size: expected number > 0, got -1",
        "keymaps.send: expected string or false, got number",
        "timeouts.request_ms: expected number > 0, got string",
        "frame_ms: expected number >= 0, got boolean",
      },
      problems({
        agents = { claude = { command = 42 } },
        layout = { position = "diagonal", size = -1 },
        keymaps = { send = 1 },
        timeouts = { request_ms = "soon" },
        frame_ms = true,
      })
    )
  end)

  it("reports unknown keys at any depth, with a suggestion for a close name", function()
    eq({
      "layout.sise: unknown option (did you mean size?)",
      "timeouts.reqest_ms: unknown option (did you mean request_ms?)",
      "agnets: unknown option (did you mean agents?)",
      "nonsense: unknown option",
    }, problems({ agnets = {}, nonsense = true, layout = { sise = 1 }, timeouts = { reqest_ms = 1 } }))
  end)

  it("checks an agent's protocol: v1 or v2-draft", function()
    eq(
      {},
      problems({ agents = { a = { command = "a", protocol = "v2-draft" }, b = { command = "b", protocol = "v1" } } })
    )
    eq(
      { 'agents.a.protocol: expected one of "v1", "v2-draft", got "v2"' },
      problems({ agents = { a = { command = "a", protocol = "v2" } } })
    )
  end)

  it("checks list items, map entries and required fields", function()
    eq(
      {
        "agents.a.args[2]: expected string, got number",
        "agents.b.command: missing (expected non-empty string)",
        "agents.c.env.TOKEN: expected string, got number",
        "agents.d.options.x: expected string or boolean, got table",
        'permissions.rules[2].action: expected one of "allow", "reject", got "maybe"',
        "fs.extra_roots: expected list of strings, got table",
      },
      problems({
        agents = {
          a = { command = "a", args = { "x", 3 } },
          b = { args = {} },
          c = { command = "c", env = { TOKEN = 1 } },
          d = { command = "d", options = { x = {} } },
        },
        permissions = { rules = { { action = "allow" }, { action = "maybe" } } },
        fs = { extra_roots = { a = "b" } },
      })
    )
  end)

  it("checks whole numbers and bounds", function()
    eq({ "layout.prompt_height: expected integer >= 1, got 2.5" }, problems({ layout = { prompt_height = 2.5 } }))
    eq({ "layout.prompt_height: expected integer >= 1, got 0" }, problems({ layout = { prompt_height = 0 } }))
    eq(
      { "terminal.output_limit_bytes: expected number > 0, got 0" },
      problems({ terminal = { output_limit_bytes = 0 } })
    )
  end)

  it("keymaps take a key or false, not true", function()
    eq({}, problems({ keymaps = { cancel = false } }))
    eq({ "keymaps.cancel: expected string or false, got true" }, problems({ keymaps = { cancel = true } }))
  end)

  it("a wrong root or section type is reported", function()
    eq("acpchat: setup(): expected table, got string", config.validate("x"))
    eq(
      { "agents: expected table of name = agent, got number", "layout: expected table, got string" },
      problems({ agents = 1, layout = "right" })
    )
  end)

  it("JSON null counts as unset", function()
    eq({}, problems({ default_agent = vim.NIL, log_dir = vim.NIL }))
  end)
end)

describe("set() keeps every valid part", function()
  it("applies the valid keys, defaults for the wrong ones, and returns the message", function()
    local ok, msg = config.set({
      layout = { position = "diagonal", size = 0.5 },
      write = "save",
      follow = "yes",
      timeouts = { request_ms = 1000, cancel_ms = -5 },
    })
    eq(false, ok)
    eq(
      'acpchat: setup(): layout.position: expected one of "right", "left", "top", "bottom", "float", got "diagonal"; follow: expected boolean, got string; timeouts.cancel_ms: expected number > 0, got -5',
      msg
    )
    eq({ position = "right", size = 0.5, prompt_height = 5 }, config.options.layout)
    eq("save", config.options.write)
    eq(false, config.options.follow)
    eq(
      { initialize_ms = 60000, new_session_ms = 120000, cancel_ms = 10000, request_ms = 1000 },
      config.options.timeouts
    )
    eq(3, #config.problems)
  end)

  it("an agent with a mistake is left out; the others stay", function()
    config.set({ agents = { good = { command = "good" }, bad = { command = "bad", args = { 1 } } } })
    eq({ good = { command = "good" } }, config.options.agents)
  end)

  it("a permission rule list with one mistake is dropped whole (a reject rule is never lost)", function()
    config.set({
      permissions = { rules = { { action = "reject", pth = "secret/**" }, { kind = "read", action = "allow" } } },
    })
    eq({}, config.options.permissions.rules)
    eq({ "permissions.rules[1].pth: unknown option (did you mean path?)" }, config.problems)
  end)

  it("each set() starts from the defaults", function()
    config.set({ write = "save", layout = { size = 80 } })
    config.set({ follow = true })
    eq("review", config.options.write)
    eq(0.4, config.options.layout.size)
    eq(true, config.options.follow)
  end)

  it("paths in save_dir and log_dir are expanded", function()
    config.set({ save_dir = "~/transcripts", log_dir = "/tmp/acp/" })
    eq(vim.fs.normalize("~/transcripts"), config.save_dir())
    truthy(not config.save_dir():find("~", 1, true), "no ~ left")
    eq("/tmp/acp", config.log_dir())
  end)
end)

describe("agents", function()
  local bin

  before_each(function()
    -- A PATH holding only a fake `gemini`: the gemini preset is found, the others are not.
    bin = vim.fn.tempname()
    vim.fn.mkdir(bin, "p")
    vim.fn.writefile({ "#!/bin/sh" }, bin .. "/gemini")
    vim.fn.setfperm(bin .. "/gemini", "rwxr-xr-x")
    vim.env.PATH = bin
  end)

  it("presets on PATH plus configured agents, sorted; configured ones replace presets", function()
    config.set({ agents = { mine = { command = "mine" } } })
    eq({ gemini = { command = "gemini", args = { "--acp" } }, mine = { command = "mine" } }, config.agents())
    eq({ "gemini", "mine" }, config.agent_names())
    config.set({ agents = { gemini = { command = "my-gemini" } } })
    eq({ command = "my-gemini" }, config.agents().gemini)
  end)

  it("default_agent: the configured one, else the first by name", function()
    config.set({ agents = { zed = { command = "zed" } } })
    eq("gemini", config.default_agent())
    config.set({ agents = { zed = { command = "zed" } }, default_agent = "zed" })
    eq("zed", config.default_agent())
  end)

  it("install_hint names every preset and its command", function()
    local hint = config.install_hint()
    for name, p in pairs(config.presets) do
      matches(name .. ": ", hint)
      truthy(hint:find(p.command, 1, true), p.command .. " in the hint")
    end
  end)
end)

describe("schema", function()
  it("every node has a description or belongs to a documented container", function()
    local missing = {}
    local function walk(node, path, documented)
      if not node.desc and not documented then
        missing[#missing + 1] = path
      end
      for _, f in ipairs(node.fields or {}) do
        walk(f[2], path == "" and f[1] or path .. "." .. f[1], false)
      end
    end
    for _, f in ipairs(config.schema.fields) do
      walk(f[2], f[1], false)
    end
    eq({}, missing)
  end)
end)
