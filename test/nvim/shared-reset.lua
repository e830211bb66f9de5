-- Test harness only (test/support/shared-nvim.ts): one Neovim serves the tests of a file in turn.
-- snapshot() notes what the editor looks like right after its start; close() ends what a test
-- started (its chats and so their agents, language servers, jobs); restore() puts back the rest
-- (windows, buffers, globals, options, autocommands, the plugin's Lua modules) so the next test
-- meets the editor as a fresh start would, except for the Node host, which is the point of sharing.
local api = vim.api
local M = {}
local snap
-- Chats the reset closed (ids never repeat: the bridge counts them), those closed since the last
-- restore, and what Node sent for a closed one after its close had finished: state that outlived
-- its test. The harness fails the test that sees such an event (M.strays), loudly.
local closed, closing, strays = {}, {}, {}

-- The bridge holds the channel to the running Node host: reloading it would start a second host.
local KEEP = { ["acpchat.host.bridge"] = true, ["acpchat.host.contract"] = true }
local MODES = { "n", "v", "x", "s", "o", "i", "c", "t", "l" }

local function set_of(list, key)
  local s = {}
  for _, v in ipairs(list) do
    s[key(v)] = true
  end
  return s
end

local function option_values(scope)
  local out = {}
  for name, info in pairs(api.nvim_get_all_options_info()) do
    if scope == "global" or info.scope == scope then
      local ok, v = pcall(api.nvim_get_option_value, name, { scope = scope == "global" and "global" or "local" })
      if ok then
        out[name] = v
      end
    end
  end
  return out
end

local function keymaps()
  local out = {}
  for _, m in ipairs(MODES) do
    for _, k in ipairs(api.nvim_get_keymap(m)) do
      out[#out + 1] = { mode = m, lhs = k.lhs }
    end
  end
  return out
end

--- The uv timers running now, by handle. None on 0.10: its vim.uv.walk aborts Neovim (an
--- assertion in luv_walk_cb), so timers left running go unseen there.
local function timers()
  local out = {}
  if vim.fn.has("nvim-0.11") == 0 then
    return out
  end
  vim.uv.walk(function(h)
    if h:get_type() == "timer" and h:is_active() and not h:is_closing() then
      out[h] = true
    end
  end)
  return out
end

--- Every event from Node passes here first: one about a chat an earlier test closed is noted.
local function watch(bridge)
  if bridge.acpchat_test_watched then
    return
  end
  bridge.acpchat_test_watched = true
  local receive = bridge.receive
  bridge.receive = function(event, payload)
    local id = type(payload) == "table" and payload.chat or nil
    if id and closed[id] then
      strays[#strays + 1] = string.format("%s for chat %s: %s", event, id, vim.inspect(payload):sub(1, 300))
    end
    return receive(event, payload)
  end
end

--- Events Node sent for chats of earlier tests since the last call (then forgotten).
function M.strays()
  local out = strays
  strays = {}
  return out
end

function M.snapshot()
  local g = {}
  for k, v in pairs(_G) do
    g[k] = v
  end
  snap = {
    G = g,
    ui = vim.tbl_extend("force", {}, vim.ui),
    notify = vim.notify,
    notify_once = vim.notify_once,
    vars = vim.fn.eval("g:"),
    env = vim.fn.environ(),
    autocmds = set_of(api.nvim_get_autocmds({}), function(a)
      return a.id or -1
    end),
    commands = vim.tbl_keys(api.nvim_get_commands({})),
    -- The plugin's modules a fresh start has loaded (plugin/acpchat.lua, setup()).
    modules = vim.tbl_filter(function(name)
      return name == "acpchat" or name:match("^acpchat%.") ~= nil
    end, vim.tbl_keys(package.loaded)),
    maps = set_of(keymaps(), function(k)
      return k.mode .. "\0" .. k.lhs
    end),
    timers = timers(),
    go = option_values("global"),
    wo = option_values("win"),
    bo = option_values("buf"),
  }
  snap.commands = set_of(snap.commands, function(k)
    return k
  end)
end

--- The host's channel and how many hosts this editor started (0: none yet).
function M.host()
  local b = package.loaded["acpchat.host.bridge"]
  return { channel = b and b.channel or 0, generation = b and b.generation or 0 }
end

--- Close every chat (their agents stop), stop language servers and jobs other than the host.
--- Returns why the editor cannot be reset (blocked in a prompt, a UI attached), else nil.
function M.close()
  if api.nvim_get_mode().blocking then
    return "Neovim was blocked in a prompt"
  elseif #api.nvim_list_uis() > 0 then
    return "a UI was attached"
  end
  -- Keys the test typed and Neovim has not run yet run now, ending in Normal mode.
  pcall(api.nvim_feedkeys, api.nvim_replace_termcodes("<C-\\><C-n>", true, false, true), "nx", false)
  vim.cmd("stopinsert")
  local reg = package.loaded["acpchat.chat.registry"]
  if reg then
    local chats = require("acpchat.app.chats")
    for _, c in ipairs(vim.tbl_values(reg.chats)) do
      closing[c.id] = true
      pcall(chats.close, c)
    end
  end
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  if #clients > 0 then
    pcall(vim.lsp.stop_client, clients, true)
  end
  local host = M.host().channel
  for _, ch in ipairs(api.nvim_list_chans()) do
    if ch.stream == "job" and ch.id ~= host then
      pcall(vim.fn.jobstop, ch.id)
    end
  end
end

local function restore_table(into, from)
  for k in pairs(into) do
    if from[k] == nil then
      into[k] = nil
    end
  end
  for k, v in pairs(from) do
    if into[k] ~= v then
      into[k] = v
    end
  end
end

local function restore_options(want, scope)
  local now = option_values(scope)
  for name, v in pairs(want) do
    if now[name] ~= v then
      pcall(api.nvim_set_option_value, name, v, { scope = scope == "global" and "global" or "local" })
    end
  end
end

--- Everything else back as snapshot() saw it. Call after close() and once the agents are gone.
--- Returns why the editor is not as it started, else nil.
function M.restore()
  -- Node has finished closing them (the harness saw its chat list empty, and its last flush
  -- came before that answer): from now on nothing may arrive for them.
  for id in pairs(closing) do
    closed[id] = true
  end
  closing = {}
  -- What the last events scheduled (a note about a closed chat) runs now, not in the next test.
  vim.wait(10)
  -- One new tab with one new window (no t: or w: variables of the plugin's left) and one empty
  -- buffer: review tabs, splits and every buffer go.
  pcall(vim.cmd, "silent! noautocmd tabnew")
  pcall(vim.cmd, "silent! noautocmd tabonly!")
  pcall(vim.cmd, "silent! noautocmd only!")
  for _, w in ipairs(api.nvim_list_wins()) do
    if w ~= api.nvim_get_current_win() then
      pcall(api.nvim_win_close, w, true)
    end
  end
  pcall(vim.cmd, "silent! %bwipeout!")
  for _, a in ipairs(api.nvim_get_autocmds({})) do
    if a.id and not snap.autocmds[a.id] then
      pcall(api.nvim_del_autocmd, a.id)
    end
  end
  for name in pairs(api.nvim_get_commands({})) do
    if not snap.commands[name] then
      pcall(api.nvim_del_user_command, name)
    end
  end
  for _, k in ipairs(keymaps()) do
    if not snap.maps[k.mode .. "\0" .. k.lhs] then
      pcall(api.nvim_del_keymap, k.mode, k.lhs)
    end
  end
  -- The plugin's modules load again on first use: no state of theirs outlives a test.
  for name in pairs(package.loaded) do
    if (name == "acpchat" or name:match("^acpchat%.")) and not KEEP[name] then
      package.loaded[name] = nil
    end
  end
  restore_table(_G, snap.G)
  restore_table(vim.ui, snap.ui)
  vim.notify, vim.notify_once = snap.notify, snap.notify_once
  local ok, vars = pcall(vim.fn.eval, "g:")
  vars = ok and vars or snap.vars
  for k, v in pairs(vars) do
    if snap.vars[k] == nil then
      pcall(api.nvim_del_var, k)
    elseif not vim.deep_equal(v, snap.vars[k]) then
      pcall(api.nvim_set_var, k, snap.vars[k])
    end
  end
  for k, v in pairs(snap.vars) do
    if vars[k] == nil then
      pcall(api.nvim_set_var, k, v)
    end
  end
  local env = vim.fn.environ()
  for k, v in pairs(env) do
    if snap.env[k] ~= v then
      vim.env[k] = snap.env[k]
    end
  end
  for k, v in pairs(snap.env) do
    if env[k] == nil then
      vim.env[k] = v
    end
  end
  -- Loaded again as a fresh start loads them: notify.lua keeps the vim.notify it finds.
  for _, name in ipairs(snap.modules) do
    pcall(require, name)
  end
  restore_options(snap.go, "global")
  restore_options(snap.wo, "win")
  restore_options(snap.bo, "buf")
  vim.cmd("messages clear")
  vim.v.errmsg = ""
  local left = {}
  for h in pairs(timers()) do
    if not snap.timers[h] then
      left[#left + 1] = tostring(h)
    end
  end
  if #left > 0 then
    return string.format("%d timer(s) outlived the reset", #left)
  end
  if #api.nvim_list_tabpages() ~= 1 or #api.nvim_list_wins() ~= 1 or #api.nvim_list_bufs() ~= 1 then
    return "windows or buffers outlived the reset"
  end
end

--- The next test's folders and setup(), as startNvim() gives them to a fresh Neovim.
function M.begin(dir, setup)
  for _, d in ipairs({ "config", "data", "state", "cache" }) do
    vim.env["XDG_" .. d:upper() .. "_HOME"] = dir .. "/" .. d
  end
  -- Options Neovim set from those folders at its start ('directory' for swap files, 'undodir',
  -- 'runtimepath'...) name this test's folders, as they would after a fresh start.
  local base = vim.fs.dirname(snap.env.XDG_STATE_HOME)
  for name, v in pairs(snap.go) do
    if type(v) == "string" and v:find(base, 1, true) then
      local new = table.concat(vim.split(v, base, { plain = true }), dir)
      pcall(api.nvim_set_option_value, name, new, { scope = "global" })
    end
  end
  vim.env.ACPCHAT_TEST_SETUP = vim.json.encode(setup)
  vim.cmd.cd(vim.fn.fnameescape(dir .. "/work"))
  -- A directory of a window's own (:lcd) would outlive the test: such an editor is not reused.
  if vim.fn.haslocaldir(0, 0) ~= 0 or vim.fn.haslocaldir(-1, 0) ~= 0 then
    return false
  end
  require("acpchat").setup(setup)
  watch(require("acpchat.host.bridge"))
  return true
end

return M
