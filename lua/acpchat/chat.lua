-- Chats on the Neovim side: their buffers and windows, keys, and the prompt.
-- Protocol and session state live in Node; a chat here is what is needed to draw and ask.
local config = require("acpchat.config")
local rpc = require("acpchat.rpc")
local util = require("acpchat.util")

local api = vim.api
local M = {}

---@type table<integer, table>
M.chats = {}
local next_id = 1

function M.get(id)
  return M.chats[id]
end

--- The chat of the current tab (the last one opened in it), if any.
function M.current()
  local tab = api.nvim_get_current_tabpage()
  local best
  for _, c in pairs(M.chats) do
    if c.tab == tab and (not best or c.id > best.id) and not c.closed then
      best = c
    end
  end
  -- From a chat buffer in another tab, that chat.
  local b = api.nvim_get_current_buf()
  for _, c in pairs(M.chats) do
    if (c.buf == b or c.prompt_buf == b) and not c.closed then
      return c
    end
  end
  return best
end

--- The current chat, or nil after telling the user there is none.
function M.need()
  local c = M.current()
  if not c then
    util.notify("acpchat: no chat in this tab (open one with :AcpChat)", vim.log.levels.WARN)
  end
  return c
end

local function scratch(name, filetype)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  return buf
end

function M.refresh_winbar(chat)
  local bar = require("acpchat.text").winbar(chat.status)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    vim.wo[win].winbar = bar
  end
end

local function size_of(total, size)
  if size < 1 then
    return math.max(10, math.floor(total * size))
  end
  return size
end

--- Show the chat's windows in the current tab (or focus them when already shown).
function M.show(chat)
  local layout = config.options.layout
  local wins = vim.fn.win_findbuf(chat.buf)
  for _, w in ipairs(wins) do
    if api.nvim_win_get_tabpage(w) == api.nvim_get_current_tabpage() then
      local pw = vim.fn.win_findbuf(chat.prompt_buf)
      api.nvim_set_current_win(pw[1] or w)
      return
    end
  end
  local tw
  if layout.position == "float" then
    local width = size_of(vim.o.columns, layout.size > 0.99 and layout.size or math.max(layout.size, 0.6))
    local height = math.floor(vim.o.lines * 0.8)
    local row = math.floor((vim.o.lines - height) / 2)
    local col = math.floor((vim.o.columns - width) / 2)
    tw = api.nvim_open_win(chat.buf, true, { relative = "editor", row = row, col = col, width = width, height = height - layout.prompt_height - 2, border = "rounded" })
    local pw = api.nvim_open_win(chat.prompt_buf, true, { relative = "editor", row = row + height - layout.prompt_height, col = col, width = width, height = layout.prompt_height, border = "rounded" })
    chat.float_wins = { tw, pw }
  else
    local vertical = layout.position == "right" or layout.position == "left"
    local total = vertical and vim.o.columns or vim.o.lines
    local mods = ({ right = "botright vertical", left = "topleft vertical", top = "topleft", bottom = "botright" })[layout.position]
    vim.cmd(string.format("%s %dsplit", mods, size_of(total, layout.size)))
    tw = api.nvim_get_current_win()
    api.nvim_win_set_buf(tw, chat.buf)
    vim.cmd(string.format("belowright %dsplit", layout.prompt_height))
    api.nvim_win_set_buf(0, chat.prompt_buf)
    vim.wo.winfixheight = true
  end
  for _, w in ipairs({ tw }) do
    vim.wo[w].wrap = true
    vim.wo[w].linebreak = true
    vim.wo[w].number = false
    vim.wo[w].relativenumber = false
    vim.wo[w].signcolumn = "no"
    vim.wo[w].foldmethod = "manual"
    vim.wo[w].foldtext = "v:lua.require'acpchat.chat'.foldtext()"
    vim.wo[w].foldenable = true
    vim.wo[w].fillchars = "fold: "
    require("acpchat.render").refold(chat, w)
    vim.wo[w].conceallevel = 2
  end
  api.nvim_win_set_cursor(tw, { api.nvim_buf_line_count(chat.buf), 0 })
  M.refresh_winbar(chat)
  M.show_context(chat)
end

function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  return string.format("  ┆ thought (%d line%s)", n, n == 1 and "" or "s")
end

function M.hide(chat)
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      if #api.nvim_list_wins() > 1 then
        pcall(api.nvim_win_close, w, true)
      end
    end
  end
end

local function map(buf, mode, lhs, rhs, desc)
  if lhs and lhs ~= false and lhs ~= "" then
    vim.keymap.set(mode, lhs, rhs, { buffer = buf, desc = "acpchat: " .. desc, nowait = true, silent = true })
  end
end

local function jump_turn(chat, dir)
  local rows = require("acpchat.render").turn_rows(chat)
  local cur = api.nvim_win_get_cursor(0)[1] - 1
  local target
  if dir > 0 then
    for _, r in ipairs(rows) do
      if r > cur then
        target = r
        break
      end
    end
  else
    for i = #rows, 1, -1 do
      if rows[i] < cur then
        target = rows[i]
        break
      end
    end
  end
  if target then
    api.nvim_win_set_cursor(0, { target + 1, 0 })
  end
end

--- The tool call block under the cursor in the transcript.
local function tool_at_cursor(chat)
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local b = require("acpchat.render").block_at(chat, row)
  if b and b.type == "tool" then
    return b
  end
end

local function open_location(chat)
  local b = tool_at_cursor(chat)
  local line = api.nvim_get_current_line()
  local path, lnum = line:match("^%s*↳ (.-):(%d+)$")
  if not path then
    path = line:match("^%s*↳ (.+)$")
  end
  if not path and b and b.view and b.view.locations and b.view.locations[1] then
    path, lnum = b.view.locations[1].path, b.view.locations[1].line
  end
  if not path then
    return vim.cmd("normal! gf")
  end
  -- Open in the last editor window, not in the chat.
  vim.cmd("wincmd p")
  if vim.bo.filetype == "acpchat" or vim.bo.filetype == "acpchat-prompt" then
    vim.cmd("topleft vsplit")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  if tonumber(lnum) and lnum ~= vim.NIL then
    pcall(api.nvim_win_set_cursor, 0, { tonumber(lnum), 0 })
  end
end

local function setup_keys(chat)
  local k = config.options.keymaps
  map(chat.prompt_buf, "n", k.send, function()
    M.send_prompt(chat)
  end, "send the prompt")
  map(chat.prompt_buf, "i", k.send_insert, function()
    M.send_prompt(chat)
  end, "send the prompt")
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    map(b, { "n", "i" }, k.cancel, function()
      M.cancel(chat)
    end, "cancel the turn")
  end
  map(chat.buf, "n", k.hide, function()
    M.hide(chat)
  end, "hide the chat")
  map(chat.buf, "n", k.next_turn, function()
    jump_turn(chat, 1)
  end, "next turn")
  map(chat.buf, "n", k.prev_turn, function()
    jump_turn(chat, -1)
  end, "previous turn")
  map(chat.buf, "n", k.open_location, function()
    open_location(chat)
  end, "open the tool call's location")
  map(chat.buf, "n", k.show_terminal, function()
    local b = tool_at_cursor(chat)
    local term
    for _, c in ipairs(b and b.view and b.view.content or {}) do
      if c.type == "terminal" then
        term = c.id
      end
    end
    M.show_terminal(chat, term)
  end, "show the terminal output")
  map(chat.buf, "n", k.show_diff, function()
    local b = tool_at_cursor(chat)
    if not b then
      return util.notify("acpchat: no tool call under the cursor", vim.log.levels.WARN)
    end
    local ok, review = pcall(require, "acpchat.review")
    if ok and review.show_tool_diff then
      review.show_tool_diff(chat, b.tool_call_id)
    end
  end, "show the tool call's diff")
end

--- Create a chat with `agent_name` in the current tab and start its agent.
--- opts.resume: continue that earlier session (resume, or load with its replay).
function M.create(agent_name, opts_)
  opts_ = opts_ or {}
  local agents = config.agents()
  local name = agent_name or config.default_agent()
  if not name then
    util.notify(config.install_hint(), vim.log.levels.ERROR)
    return nil
  end
  local agent = agents[name]
  if not agent then
    local preset = config.presets[name]
    local hint = preset and string.format(" (`%s` is not on PATH: %s)", preset.command, preset.install) or ""
    util.notify(string.format("acpchat: unknown agent %q%s. Known: %s", name, hint, table.concat(config.agent_names(), ", ")), vim.log.levels.ERROR)
    return nil
  end
  local id = next_id
  next_id = next_id + 1
  local chat = {
    id = id,
    agent = name,
    tab = api.nvim_get_current_tabpage(),
    cwd = agent.cwd or vim.fn.getcwd(),
    context = {},
  }
  chat.buf = scratch(string.format("acpchat://%d/chat", id), "acpchat")
  chat.prompt_buf = scratch(string.format("acpchat://%d/prompt", id), "acpchat-prompt")
  vim.bo[chat.buf].modifiable = false
  -- The transcript is rewritten by the plugin only: undo history would just hold every chunk.
  vim.bo[chat.buf].undolevels = -1
  vim.bo[chat.prompt_buf].omnifunc = "v:lua.require'acpchat.complete'.omnifunc"
  vim.bo[chat.prompt_buf].completefunc = "v:lua.require'acpchat.complete'.omnifunc"
  M.chats[id] = chat
  chat.status = { agent = name, state = "idle", status = "starting", commands = {} }
  setup_keys(chat)
  require("acpchat.complete").attach(chat)
  M.placeholder(chat)
  api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    buffer = chat.prompt_buf,
    callback = function()
      M.placeholder(chat)
    end,
  })
  -- Wiping the transcript ends the chat: its agent must not outlive every view of it.
  api.nvim_create_autocmd("BufWipeout", {
    buffer = chat.buf,
    once = true,
    callback = function()
      if not chat.closed then
        vim.schedule(function()
          M.close(chat)
        end)
      end
    end,
  })
  local opts = config.options
  local ok, err = pcall(rpc.request, "open", {
    id = id,
    agent = {
      name = name,
      command = agent.command,
      args = agent.args or {},
      env = agent.env or vim.empty_dict(),
      cwd = agent.cwd,
      mode = agent.mode,
      model = agent.model,
      options = agent.options,
    },
    resume = opts_.resume,
    session_index = require("acpchat.sessions").index_file(),
    cwd = chat.cwd,
    log_dir = config.log_dir(),
    extra_roots = opts.fs.extra_roots,
    timeouts = opts.timeouts,
    fs = { max_read_bytes = opts.fs.max_read_bytes },
    frame_ms = opts.frame_ms,
    write = opts.write,
    permissions = {
      rules = #opts.permissions.rules > 0 and opts.permissions.rules or nil,
      store = vim.fn.stdpath("state") .. "/acpchat/permissions.json",
    },
  })
  if not ok then
    util.notify(tostring(err), vim.log.levels.ERROR)
    M.chats[id] = nil
    pcall(api.nvim_buf_delete, chat.buf, { force = true })
    pcall(api.nvim_buf_delete, chat.prompt_buf, { force = true })
    return nil
  end
  return chat
end

local ns_hint = api.nvim_create_namespace("acpchat_prompt_hint")

function M.context_label(item)
  local name = vim.fn.fnamemodify(item.path, ":~:.")
  return item.type == "range" and string.format("%s:%d-%d", name, item.start, item["end"]) or name
end

--- The prompt window's winbar lists the context waiting for the next prompt (:AcpChatAdd).
function M.show_context(chat)
  local bar = ""
  if #chat.context > 0 then
    bar = "context: " .. table.concat(vim.tbl_map(M.context_label, chat.context), ", ")
  end
  for _, w in ipairs(vim.fn.win_findbuf(chat.prompt_buf)) do
    vim.wo[w].winbar = (bar:gsub("%%", "%%%%"))
  end
end

--- A hint in the empty prompt: who is listening and which keys do what.
function M.placeholder(chat)
  if not api.nvim_buf_is_valid(chat.prompt_buf) then
    return
  end
  api.nvim_buf_clear_namespace(chat.prompt_buf, ns_hint, 0, -1)
  local lines = api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false)
  if #lines > 1 or (lines[1] or "") ~= "" then
    return
  end
  local k = config.options.keymaps
  local hint = string.format("Ask %s…  %s send · %s cancel · @ file · / command", chat.agent, k.send_insert or k.send or "", k.cancel or "")
  api.nvim_buf_set_extmark(chat.prompt_buf, ns_hint, 0, 0, { virt_text = { { hint, "Comment" } }, virt_text_pos = "overlay" })
end

--- Start a failed chat's agent again; the session continues when the agent can resume or load it.
function M.restart(chat)
  local ok, res = pcall(rpc.request, "restart", { id = chat.id })
  if not ok then
    return util.notify(tostring(res), vim.log.levels.ERROR)
  end
  if res.how == "load" then
    -- The agent replays the conversation: draw it afresh.
    M.reset_view(chat)
  else
    -- New blocks continue below the old text.
    chat.render = nil
  end
  util.notify(string.format("acpchat: restarting %s (%s)", chat.agent, res.how == "new" and "new session" or (res.how .. "ing the session")))
end

--- Empty the transcript and its render state.
function M.reset_view(chat)
  chat.render = nil
  vim.bo[chat.buf].modifiable = true
  api.nvim_buf_set_lines(chat.buf, 0, -1, false, {})
  api.nvim_buf_clear_namespace(chat.buf, -1, 0, -1)
  vim.bo[chat.buf].modifiable = false
end

--- :AcpChatSave [path]: the transcript as markdown.
function M.save(chat, path)
  if not path or path == "" then
    local title = (chat.status and chat.status.title) or chat.agent
    path = string.format("acpchat-%s-%s.md", title:gsub("[^%w%-_]+", "-"):sub(1, 40), os.date("%Y%m%d-%H%M%S"))
  end
  path = vim.fn.fnamemodify(path, ":p")
  local lines = api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local ok, err = pcall(vim.fn.writefile, lines, path)
  util.notify(ok and ("acpchat: saved the transcript to " .. path) or ("acpchat: could not save: " .. tostring(err)), ok and vim.log.levels.INFO or vim.log.levels.ERROR)
  return ok and path or nil
end

--- The prompt buffer's text is sent, with the context added by :AcpChatAdd.
function M.send_prompt(chat)
  local lines = api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false)
  local text = vim.trim(table.concat(lines, "\n"))
  if text == "" then
    return
  end
  if M.send(chat, text) then
    api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, {})
  end
end

function M.send(chat, text)
  local ok, err = pcall(rpc.request, "send", { id = chat.id, text = text, context = chat.context })
  if not ok then
    util.notify(tostring(err), vim.log.levels.WARN)
    return false
  end
  chat.context = {}
  M.show_context(chat)
  return true
end

function M.cancel(chat)
  pcall(rpc.request, "cancel", { id = chat.id })
end

function M.close(chat)
  chat.closed = true
  -- Asynchronous: stopping an agent may take a grace period; the editor need not wait for it.
  rpc.notify("close", { id = chat.id })
  M.hide(chat)
  pcall(api.nvim_buf_delete, chat.prompt_buf, { force = true })
  pcall(api.nvim_buf_delete, chat.buf, { force = true })
  M.chats[chat.id] = nil
end

--- The editor window of the chat's tab the user worked in last (not a chat window).
local function editor_window(chat)
  if not api.nvim_tabpage_is_valid(chat.tab) then
    return nil
  end
  local best, best_time
  for _, w in ipairs(api.nvim_tabpage_list_wins(chat.tab)) do
    local b = api.nvim_win_get_buf(w)
    local ft = vim.bo[b].filetype
    if not ft:match("^acpchat") and api.nvim_win_get_config(w).relative == "" then
      local t = vim.fn.getwininfo(w)[1]
      local last = (t and t.lastused) or 0
      if not best or last > best_time then
        best, best_time = w, last
      end
    end
  end
  return best
end

--- Follow-along: show a running tool call's location in the last editor window, keeping focus.
function M.follow(chat, view)
  if not config.options.follow or view.status ~= "in_progress" then
    return
  end
  local loc = view.locations and view.locations[1]
  if not loc or vim.fn.filereadable(loc.path) == 0 then
    return
  end
  local key = loc.path .. ":" .. tostring(loc.line)
  if chat.followed == key then
    return
  end
  chat.followed = key
  vim.schedule(function()
    local w = editor_window(chat)
    if not w then
      return
    end
    local b = vim.fn.bufadd(loc.path)
    vim.fn.bufload(b)
    vim.bo[b].buflisted = true
    api.nvim_win_set_buf(w, b)
    if type(loc.line) == "number" then
      pcall(api.nvim_win_set_cursor, w, { math.max(1, loc.line), 0 })
    end
  end)
end

--- The full output of a terminal in a buffer that stays after the terminal is released.
function M.show_terminal(chat, terminal_id)
  local ok, terms = pcall(rpc.request, "terminal", { id = chat.id, terminal = terminal_id })
  if not ok or #terms == 0 then
    return util.notify("acpchat: no terminal output" .. (ok and "" or (": " .. tostring(terms))), vim.log.levels.WARN)
  end
  local t = terms[#terms]
  local name = string.format("acpchat://%d/terminal/%s", chat.id, t.id)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = scratch(name, "acpchat-terminal")
  end
  local lines = vim.split(t.output, "\n", { plain = true })
  lines[#lines + 1] = "[" .. (t.exit ~= vim.NIL and t.exit or "running") .. "]"
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.cmd("botright split")
  api.nvim_win_set_buf(0, buf)
end

return M
