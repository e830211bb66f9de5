-- A chat's life on the Lua side: its buffers, opening it in Node, sending, cancelling, restarting
-- and closing. Every call to Node is sent without waiting (bridge.lua); what follows comes back
-- as render batches and results.
local bridge = require("acpchat.host.bridge")
local config = require("acpchat.config")
local features = require("acpchat.transcript.features")
local keys = require("acpchat.app.keys")
local layout = require("acpchat.chat.layout")
local prompt = require("acpchat.chat.prompt")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local events = require("acpchat.app.events")
-- Watches the user's keys from the first chat on: a question never opens while they type.
require("acpchat.chat.waiting")
local complete = require("acpchat.complete")
local prompt_history = require("acpchat.complete.prompt_history")
local project_settings = require("acpchat.chat.project")
local mentions = require("acpchat.complete.mentions")
events.register()

local api = vim.api
local M = {}

local function scratch(name, filetype)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  return buf
end

local function index_file()
  return vim.fn.stdpath("state") .. "/acpchat/sessions.json"
end
M.index_file = index_file

--- The agent as it crosses to Node: its environment and options as lists (contract.ts).
function M.agent_params(name, agent)
  local env, options = {}, {}
  for k, v in pairs(agent.env or {}) do
    env[#env + 1] = { name = k, value = v }
  end
  for k, v in pairs(agent.options or {}) do
    options[#options + 1] = { id = k, value = v }
  end
  return {
    name = name,
    command = agent.command,
    args = agent.args or {},
    env = env,
    cwd = agent.cwd,
    mode = agent.mode,
    model = agent.model,
    options = options,
    protocol = agent.protocol,
    editor_files = agent.editor_files,
  }
end

--- name = value tables as the pairs they cross as (sorted: the same config sends the same list).
local function pairs_of(t)
  local out = {}
  for k, v in pairs(t or {}) do
    out[#out + 1] = { name = k, value = v }
  end
  table.sort(out, function(a, b)
    return a.name < b.name
  end)
  return out
end

--- The MCP servers for a chat with `agent`: the global ones, the project's, the agent's, then the
--- project's for that agent (one of the same name replaces an earlier one, in its place).
--- `$VAR`s are expanded by Node when the chat starts.
function M.mcp_params(agent, project, name)
  project = project or {}
  local project_agent = (project.agents or {})[name or ""] or {}
  local list, at = {}, {}
  for _, source in ipairs({
    config.options.mcp_servers or {},
    project.mcp_servers or {},
    agent.mcp_servers or {},
    project_agent.mcp_servers or {},
  }) do
    for _, s in ipairs(source) do
      local p = {
        name = s.name,
        type = s.type,
        command = s.command,
        args = s.args,
        env = s.env and pairs_of(s.env),
        url = s.url,
        headers = s.headers and pairs_of(s.headers),
      }
      if at[s.name] then
        list[at[s.name]] = p
      else
        list[#list + 1] = p
        at[s.name] = #list
      end
    end
  end
  return list
end

--- The editor's tools for a chat with agent `name` (nil: off): the global setting, then the
--- project's, and either the agent's or the project's `editor_tools = false` for that agent
--- (`"stdio"`: the server process even for an agent that takes http MCP servers).
function M.editor_tools_params(name, agent, project)
  local g = config.options.editor_tools
  local p = project.editor_tools or {}
  local enabled, tools = g.enabled, p.tools or g.tools
  if p.enabled ~= nil then
    enabled = p.enabled
  end
  local pa = (project.agents or {})[name] or {}
  if agent.editor_tools == false or pa.editor_tools == false or #tools == 0 then
    enabled = false
  end
  if not enabled then
    return nil
  end
  local stdio = agent.editor_tools == "stdio" or pa.editor_tools == "stdio"
  return { tools = tools, timeout_ms = g.timeout_ms, max_items = g.max_results, transport = stdio and "stdio" or nil }
end

local function open_params(chat, agent, resume, reopen, fork)
  local opts = config.options
  local project = project_settings.load(chat.cwd)
  local mcp = M.mcp_params(agent, project, chat.agent)
  return {
    mcp_servers = #mcp > 0 and mcp or nil,
    editor_tools = M.editor_tools_params(chat.agent, agent, project),
    chat = chat.id,
    reopen = reopen or nil,
    unstable = features.option(),
    fork = fork,
    agent = M.agent_params(chat.agent, agent),
    resume = resume,
    -- Shown above a resume that replays nothing: the new turns are numbered after its turns.
    history_turns = resume and require("acpchat.transcript.history").turns(resume) or nil,
    session_index = index_file(),
    cwd = chat.cwd,
    log_dir = config.log_dir(),
    extra_roots = opts.fs.extra_roots,
    timeouts = opts.timeouts,
    fs = { max_read_bytes = opts.fs.max_read_bytes },
    terminal = opts.terminal and { output_limit_bytes = opts.terminal.output_limit_bytes } or nil,
    media = opts.media and { max_bytes = opts.media.max_bytes } or nil,
    frame_ms = opts.frame_ms,
    write = opts.write,
    checkpoints = opts.checkpoints.enabled and {
      dir = vim.fn.stdpath("state") .. "/acpchat/checkpoints",
      max_files = opts.checkpoints.max_files,
      max_file_bytes = opts.checkpoints.max_file_bytes,
      max_age_days = opts.checkpoints.max_age_days,
      max_bytes = opts.checkpoints.max_size_mb * 1024 * 1024,
    } or nil,
    permissions = {
      rules = #opts.permissions.rules > 0 and opts.permissions.rules or nil,
      store = vim.fn.stdpath("state") .. "/acpchat/permissions.json",
    },
  }
end

--- Open the chat in Node (in the background: the host and the agent start while the user types).
---@param chat acpchat.Chat
local function open_in_node(chat, resume, reopen, fork)
  chat.generation = bridge.generation
  chat.status = {
    agent = chat.agent,
    cwd = chat.cwd,
    state = "starting",
    activity = "idle",
    queued = {},
    commands = {},
    modes = { available = {} },
    options = {},
  }
  layout.refresh_winbar(chat)
  bridge.call("open", open_params(chat, chat.spec, resume, reopen, fork))
  -- A host that was not running started with this call.
  chat.generation = bridge.generation
end

--- The project folder of the current directory (option root_markers), else the directory.
function M.root()
  local cwd = vim.fn.getcwd()
  local markers = config.options.root_markers or {}
  return #markers > 0 and vim.fs.root(cwd, markers) or cwd
end

--- Create a chat with `agent_name` in the current tab and start its agent.
--- opts.resume: continue that earlier session (resume, or load with its replay).
--- opts.fork: start with a fork of that session (session/fork, option `unstable`).
function M.create(agent_name, opts_)
  opts_ = opts_ or {}
  local name = agent_name or config.default_agent()
  if not name then
    local presets = vim.tbl_map(function(p)
      return p.command
    end, vim.tbl_values(config.presets))
    table.sort(presets)
    util.notify(
      "acpchat: no agent found: install " .. table.concat(presets, ", ") .. " (:checkhealth acpchat says how)",
      vim.log.levels.ERROR
    )
    return nil
  end
  local agent = config.agents()[name]
  if not agent then
    local preset = config.presets[name]
    local hint = preset and string.format(" (`%s` is not on PATH: %s)", preset.command, preset.install) or ""
    util.notify(
      string.format("acpchat: unknown agent %q%s. Known: %s", name, hint, table.concat(config.agent_names(), ", ")),
      vim.log.levels.ERROR
    )
    return nil
  end
  local id = registry.new_id()
  local chat = {
    id = id,
    agent = name,
    spec = agent,
    tab = api.nvim_get_current_tabpage(),
    cwd = agent.cwd or M.root(),
    context = {},
  }
  chat.buf = scratch(string.format("acpchat://%d/chat", id), "acpchat")
  chat.prompt_buf = scratch(string.format("acpchat://%d/prompt", id), "acpchat-prompt")
  vim.bo[chat.buf].modifiable = false
  -- The transcript is rewritten by the plugin only: undo history would just hold every chunk.
  vim.bo[chat.buf].undolevels = -1
  vim.bo[chat.prompt_buf].omnifunc = "v:lua.require'acpchat.complete'.omnifunc"
  vim.bo[chat.prompt_buf].completefunc = "v:lua.require'acpchat.complete'.omnifunc"
  registry.chats[id] = chat
  keys.setup(chat, { send = M.send_prompt, cancel = M.cancel, hide = layout.hide })
  layout.track_scroll(chat)
  complete.attach(chat)
  prompt.placeholder(chat)
  api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    buffer = chat.prompt_buf,
    callback = function()
      prompt.placeholder(chat)
      layout.fit_prompt(chat)
    end,
  })
  -- The transcript and the prompt close as a pair: :q on one closes the other in that tab.
  for _, pair in ipairs({ { chat.buf, chat.prompt_buf }, { chat.prompt_buf, chat.buf } }) do
    api.nvim_create_autocmd("WinClosed", {
      buffer = pair[1],
      callback = function(ev)
        local closed = tonumber(ev.match)
        local tab = closed and api.nvim_win_is_valid(closed) and api.nvim_win_get_tabpage(closed)
        vim.schedule(function()
          for _, w in ipairs(vim.fn.win_findbuf(pair[2])) do
            if
              (not tab or (api.nvim_tabpage_is_valid(tab) and api.nvim_win_get_tabpage(w) == tab))
              and #api.nvim_list_wins() > 1
              and #vim.fn.win_findbuf(pair[1]) == 0
            then
              pcall(api.nvim_win_close, w, false)
            end
          end
        end)
      end,
    })
  end
  -- Wiping the transcript ends the chat: its agent must not outlive every view of it.
  api.nvim_create_autocmd("BufWipeout", {
    buffer = chat.buf,
    once = true,
    callback = function()
      if registry.chats[chat.id] then
        vim.schedule(function()
          M.close(chat)
        end)
      end
    end,
  })
  open_in_node(chat, opts_.resume, nil, opts_.fork)
  return chat
end

--- Send `text` (with the context added for it). `done(ok)` runs once Node took it (sent or
--- queued) or refused it; until then the user's text stays where it is.
---@param chat acpchat.Chat
function M.send(chat, text, done)
  if registry.state(chat) == "crashed" then
    util.notify(
      string.format("acpchat: %s stopped; :AcpChat restarts it (your prompt stays here)", chat.agent),
      vim.log.levels.WARN
    )
    return done and done(false)
  end
  local context = chat.context
  chat.context = {}
  chat.refused = nil
  prompt.show_context(chat)
  -- The user's own prompt: the transcript follows its answer again.
  layout.follow_end(chat)
  -- What its mentions name beyond files (mentions.lua), read now; a refused one keeps it here.
  mentions.resolve(chat, text, function(named, refused)
    if refused then
      chat.context = vim.list_extend(context, chat.context)
      prompt.refuse(chat, refused)
      util.notify("acpchat: not sent: " .. refused, vim.log.levels.ERROR)
      return done and done(false)
    end
    bridge.call("send", {
      chat = chat.id,
      text = text,
      context = vim.list_extend(vim.list_slice(context), named),
      -- Node need not ask for them (a round trip before the agent hears the prompt).
      unsaved = require("acpchat.editor.editor_tools").unsaved(),
    }, function(err)
      if err then
        -- Nothing was sent: the context waits for the next try.
        chat.context = vim.list_extend(context, chat.context)
        prompt.show_context(chat)
        util.notify("acpchat: not sent: " .. err, vim.log.levels.WARN)
      end
      if done then
        done(not err)
      end
    end)
  end)
end

--- The prompt buffer's text is sent; it leaves the prompt once Node has it.
---@param chat acpchat.Chat
function M.send_prompt(chat)
  local text = prompt.text(chat)
  if not text then
    return
  end
  if chat.sending then
    -- The previous prompt is on its way (the host may still be starting): one at a time, so
    -- nothing is sent twice.
    return util.notify("acpchat: the previous prompt is still on its way; send again in a moment", vim.log.levels.WARN)
  end
  chat.sending = text
  M.send(chat, text, function(ok)
    chat.sending = nil
    if ok then
      prompt.clear_sent(chat, text)
      prompt_history.sent(chat, text)
    end
  end)
end

--- Cancel the running turn; prompts still queued come back into the prompt buffer.
---@param chat acpchat.Chat
function M.cancel(chat)
  bridge.call("cancel", { chat = chat.id }, function(err, res)
    ---@cast res acpchat.reply.Cancel
    if not err and res and res.taken_back and #res.taken_back > 0 then
      prompt.take_back(chat, res.taken_back)
      util.notify(
        string.format(
          "acpchat: %d queued prompt%s back in the prompt",
          #res.taken_back,
          #res.taken_back == 1 and " is" or "s are"
        )
      )
    end
  end)
end

--- Start a crashed chat's agent again; the session continues when the agent can resume or
--- load it, and what is on screen stays until the replacement succeeded.
---@param chat acpchat.Chat
function M.restart(chat)
  if chat.generation ~= bridge.generation or not bridge.channel then
    -- The Node host itself went away: open the chat afresh in a new one.
    util.notify(string.format("acpchat: starting %s again", chat.agent))
    return open_in_node(chat, chat.status and chat.status.session_id, true)
  end
  -- Starting from now on (a second :AcpChat meanwhile must not restart it again).
  chat.status = vim.tbl_extend("force", chat.status or {}, { state = "starting", reason = nil })
  -- Until Node's answer is drawn, a "crashed" status is the dead agent's last (the turn it broke
  -- ended after the crash): it must not undo this "starting" (render.lua's meta).
  chat.restarting = true
  layout.refresh_winbar(chat)
  -- The last restart tried to continue the session and never got ready: a new session this
  -- time (the transcript above and the prompt's text stay), not the same failure forever.
  local fresh = chat.continuing ~= nil
  chat.continuing = nil
  bridge.call("restart", { chat = chat.id, fresh = fresh or nil }, function(err, res)
    ---@cast res acpchat.reply.Restart
    -- Everything Node sent before this answer came before it, but may still wait to be drawn.
    require("acpchat.chat.render").after_drawn(chat, function()
      chat.restarting = nil
    end)
    if err then
      return util.notify("acpchat: could not restart: " .. err, vim.log.levels.ERROR)
    end
    if res.how == "resume" or res.how == "load" then
      chat.continuing = res.how
    end
    if res.how ~= "running" then
      local how = ({ new = "new session", resume = "resuming the session", load = "loading the session" })[res.how]
        or res.how
      util.notify(
        string.format(
          "acpchat: restarting %s (%s%s)",
          chat.agent,
          how,
          fresh and "; continuing the session failed" or ""
        )
      )
    end
  end)
end

---@param chat acpchat.Chat
function M.close(chat)
  registry.chats[chat.id] = nil
  -- Stopping an agent may take a grace period; the editor need not wait for it.
  bridge.call("close", { chat = chat.id })
  layout.hide(chat)
  pcall(api.nvim_buf_delete, chat.prompt_buf, { force = true })
  pcall(api.nvim_buf_delete, chat.buf, { force = true })
end

return M
