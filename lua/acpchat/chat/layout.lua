-- The chat's windows: the transcript and the prompt below it, opened and closed as a pair, kept
-- at sensible sizes when the editor is resized.
local config = require("acpchat.config")
local blocks = require("acpchat.transcript.blocks")
local status_text = require("acpchat.transcript.status_text")
local registry = require("acpchat.chat.registry")
local waiting = require("acpchat.chat.waiting")
local prompt = require("acpchat.chat.prompt")
local follow = require("acpchat.editor.follow")

local api = vim.api
local M = {}

local function size_of(total, size)
  if size < 1 then
    return math.max(10, math.floor(total * size))
  end
  return size
end

local function wins_of(buf, tab)
  return vim.tbl_filter(function(w)
    return api.nvim_win_get_tabpage(w) == (tab or api.nvim_get_current_tabpage())
  end, vim.fn.win_findbuf(buf))
end

local function at_end(win, buf)
  return api.nvim_win_get_cursor(win)[1] >= api.nvim_buf_line_count(buf)
end

---@diagnostic disable-next-line: duplicate-set-field (waiting.lua's hook, set here)
waiting.on_change = function(chat_id)
  local chat = registry.get(chat_id)
  if chat then
    M.refresh_winbar(chat)
  end
end

---@param chat acpchat.Chat
function M.refresh_winbar(chat)
  local held = waiting.of_chat(chat.id)
  waiting.decorate(chat)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    local below = chat.unseen and not at_end(win, chat.buf)
    local width = api.nvim_win_get_width(win) - (below and 8 or 0)
    -- A waiting question comes first (waiting.lua), cut to leave room for the state: the key
    -- that answers it is at its start, so even a narrow window shows it.
    local ask = ""
    if held then
      local hint = waiting.hint(held)
      local room = math.max(20, width - 14)
      if vim.fn.strdisplaywidth(hint) > room then
        hint = vim.fn.strcharpart(hint, 0, room - 1) .. "…"
      end
      ask = "%#AcpChatAsk#" .. hint:gsub("%%", "%%%%") .. "%* │ "
    end
    vim.wo[win].winbar = ask
      .. (ask ~= "" and "%<" or "")
      .. (below and "%#AcpChatNewBelow#↓ new ↓%* " or "")
      .. status_text.winbar(chat.status, width)
  end
end

--- The user sent a prompt: every window of the transcript goes to its end and follows it again.
---@param chat acpchat.Chat
function M.follow_end(chat)
  local last = api.nvim_buf_line_count(chat.buf)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    pcall(api.nvim_win_set_cursor, win, { last, 0 })
  end
  chat.unseen = false
  M.refresh_winbar(chat)
end

--- The cursor reached the end of the transcript: the "new text below" marker goes away.
---@param chat acpchat.Chat
function M.track_scroll(chat)
  api.nvim_create_autocmd({ "CursorMoved", "WinScrolled" }, {
    buffer = chat.buf,
    callback = function()
      local win = api.nvim_get_current_win()
      if chat.unseen and api.nvim_win_get_buf(win) == chat.buf and at_end(win, chat.buf) then
        chat.unseen = false
        M.refresh_winbar(chat)
      end
    end,
  })
end

local FOLDTEXT = "v:lua.require'acpchat.chat.layout'.foldtext()"

--- A window option set for `w` alone, as :setlocal does. (vim.wo[w].x = v is :set: it also
--- sets the window's own copy of the global value, which every window split from it, or opened
--- from it with :tabnew, inherits as its global value too: the chat's fold text in a diff.)
local function setlocal(w, name, value)
  api.nvim_set_option_value(name, value, { scope = "local", win = w })
end

--- Window options of a transcript window (set with the window: they never leak into others).
---@param chat acpchat.Chat
local function transcript_options(chat, w)
  setlocal(w, "wrap", true)
  setlocal(w, "linebreak", true)
  -- Wrapped tool lines start under their text, not at column 0.
  setlocal(w, "breakindent", true)
  setlocal(w, "number", false)
  setlocal(w, "relativenumber", false)
  setlocal(w, "signcolumn", "no")
  setlocal(w, "foldmethod", "manual")
  setlocal(w, "foldtext", FOLDTEXT)
  setlocal(w, "foldenable", true)
  setlocal(w, "fillchars", "fold: ")
  setlocal(w, "conceallevel", 2)
  setlocal(w, "winfixwidth", true)
  blocks.refold(chat, w)
end

local CHAT_OPTIONS = {
  "breakindent",
  "wrap",
  "linebreak",
  "number",
  "relativenumber",
  "signcolumn",
  "foldmethod",
  "foldtext",
  "foldenable",
  "fillchars",
  "conceallevel",
  "winfixwidth",
  "winfixheight",
}

-- A window split from a transcript window inherits its window options (Vim copies them): a
-- window that shows another buffer gets the global values back, so nothing leaks.
api.nvim_create_autocmd({ "BufWinEnter", "WinNew" }, {
  group = api.nvim_create_augroup("AcpChatLayout", { clear = true }),
  callback = function()
    local win = api.nvim_get_current_win()
    local ft = vim.bo[api.nvim_win_get_buf(win)].filetype
    -- (A chat window shows another buffer only until keep_buffer puts its own back.)
    if ft == "acpchat" or ft == "acpchat-prompt" or vim.wo[win].foldtext ~= FOLDTEXT or vim.w[win].acpchat_buf then
      return
    end
    for _, name in ipairs(CHAT_OPTIONS) do
      vim.wo[win][name] = api.nvim_get_option_value(name, { scope = "global" })
    end
  end,
})

--- Sizes the layout asks for, given the editor's size now (and `chat`'s own, when it has one).
---@param chat acpchat.Chat|nil
function M.sizes(chat)
  local layout = config.options.layout
  local vertical = layout.position == "right" or layout.position == "left"
  local total = vertical and vim.o.columns or vim.o.lines
  -- A chat shown again keeps the size its split had when it was hidden.
  local size = chat and chat.split_size or size_of(total, layout.size)
  -- Never more than the editor minus room for one other window, never less than usable.
  size = math.max(vertical and 20 or 6, math.min(size, total - (vertical and 20 or 6)))
  local prompt_size = math.max(1, math.min(layout.prompt_height, math.floor(vim.o.lines / 4)))
  return vertical, size, prompt_size
end

--- Chat windows keep their buffers: another buffer shown in one (`:e file`, `:bnext`, a picker)
--- goes to an editor window of the tab instead (one is made when there is none), and the chat
--- window gets its buffer back. ('winfixbuf' would refuse `:e` with E1513 in the prompt, where
--- :AcpChat leaves the user.)
local function fix_buf(w, buf)
  vim.w[w].acpchat_buf = buf
end

--- The window of `tab` the user worked in last that is not a chat's.
local function editor_window(tab)
  return follow.last_used(tab, function(w)
    return not vim.w[w].acpchat_buf
  end)
end

local function keep_buffer(win, keep, other)
  if not api.nvim_win_is_valid(win) or api.nvim_win_get_buf(win) ~= other or not api.nvim_buf_is_valid(keep) then
    return
  end
  local cursor = api.nvim_win_get_cursor(win)
  local target = editor_window(api.nvim_win_get_tabpage(win))
  if not target then
    api.nvim_set_current_win(win)
    vim.cmd("topleft vsplit")
    target = api.nvim_get_current_win()
    vim.w[target].acpchat_buf = nil
  end
  api.nvim_win_set_buf(target, other)
  api.nvim_win_set_buf(win, keep)
  local chat
  for _, c in pairs(registry.chats) do
    if c.buf == keep then
      chat = c
    end
  end
  if chat then
    blocks.refold(chat, win)
  end
  pcall(api.nvim_win_set_cursor, target, cursor)
  api.nvim_set_current_win(target)
end

api.nvim_create_autocmd("BufWinEnter", {
  group = api.nvim_create_augroup("AcpChatKeepBuffer", { clear = true }),
  callback = function(ev)
    local win = api.nvim_get_current_win()
    local keep = vim.w[win].acpchat_buf
    if keep and ev.buf ~= keep then
      vim.schedule(function()
        keep_buffer(win, keep, ev.buf)
      end)
    end
  end,
})

--- Close windows `wins`; when they are all the windows of the current tab, an empty editor
--- window stays (the chat never takes the last window with it, nor fails to go).
local function close_wins(wins)
  local tab = api.nvim_get_current_tabpage()
  local rest = vim.tbl_filter(function(w)
    return api.nvim_win_get_config(w).relative == "" and not vim.tbl_contains(wins, w)
  end, api.nvim_tabpage_list_wins(tab))
  local here = vim.tbl_filter(function(w)
    return api.nvim_win_is_valid(w) and api.nvim_win_get_tabpage(w) == tab
  end, wins)
  if #rest == 0 and #here > 0 then
    vim.cmd("topleft new")
  end
  for _, w in ipairs(wins) do
    if api.nvim_win_is_valid(w) then
      pcall(api.nvim_win_close, w, true)
    end
  end
end

local function chat_wins(chat, tab)
  local out = {}
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      if tab == nil or api.nvim_win_get_tabpage(w) == tab then
        out[#out + 1] = w
      end
    end
  end
  return out
end

--- Show the chat's windows in the current tab (or focus them when already shown). A tab shows
--- one chat: another chat shown here is hidden first (its agent keeps running), and this chat
--- is taken from any other tab it was shown in.
---@param chat acpchat.Chat
function M.show(chat)
  local tab = api.nvim_get_current_tabpage()
  registry.mark_shown(chat, tab)
  -- Readable tab labels, unless a 'tabline' of the user's draws them.
  require("acpchat.chat.tabline").install()
  for _, other in ipairs(registry.visible_in(tab)) do
    if other ~= chat then
      close_wins(chat_wins(other, tab))
    end
  end
  local elsewhere = vim.tbl_filter(function(w)
    return api.nvim_win_get_tabpage(w) ~= tab
  end, chat_wins(chat))
  for _, w in ipairs(elsewhere) do
    pcall(api.nvim_win_close, w, true)
  end
  local layout = config.options.layout
  local shown = wins_of(chat.buf)
  if #shown > 0 then
    local pw = wins_of(chat.prompt_buf)
    if #pw == 0 then
      -- The prompt window went away alone: bring it back under the transcript.
      api.nvim_set_current_win(shown[1])
      vim.cmd(string.format("belowright %dsplit", select(3, M.sizes())))
      api.nvim_win_set_buf(0, chat.prompt_buf)
      setlocal(0, "winfixheight", true)
      fix_buf(api.nvim_get_current_win(), chat.prompt_buf)
      return
    end
    api.nvim_set_current_win(pw[1])
    return
  end
  -- Only the prompt is left (its transcript window was closed alone): it goes, and the pair
  -- opens whole below.
  close_wins(wins_of(chat.prompt_buf))
  local tw
  if layout.position == "float" then
    local width = size_of(vim.o.columns, layout.size > 0.99 and layout.size or math.max(layout.size, 0.6))
    local height = math.floor(vim.o.lines * 0.8)
    local row = math.floor((vim.o.lines - height) / 2)
    local col = math.floor((vim.o.columns - width) / 2)
    tw = api.nvim_open_win(chat.buf, true, {
      relative = "editor",
      row = row,
      col = col,
      width = width,
      height = height - layout.prompt_height - 2,
      border = "rounded",
    })
    api.nvim_open_win(chat.prompt_buf, true, {
      relative = "editor",
      row = row + height - layout.prompt_height,
      col = col,
      width = width,
      height = layout.prompt_height,
      border = "rounded",
    })
  else
    local vertical, size, prompt_size = M.sizes(chat)
    local mods = ({ right = "botright vertical", left = "topleft vertical", top = "topleft", bottom = "botright" })[layout.position]
    vim.cmd(string.format("%s %dsplit", mods, size))
    tw = api.nvim_get_current_win()
    api.nvim_win_set_buf(tw, chat.buf)
    vim.cmd(string.format("belowright %dsplit", prompt_size))
    api.nvim_win_set_buf(0, chat.prompt_buf)
    setlocal(0, "winfixheight", true)
    if not vertical then
      setlocal(tw, "winfixheight", true)
    end
  end
  transcript_options(chat, tw)
  fix_buf(tw, chat.buf)
  local pw = api.nvim_get_current_win()
  fix_buf(pw, chat.prompt_buf)
  -- The prompt is text to type, not a file: no line numbers from the window it was split from.
  setlocal(pw, "number", false)
  setlocal(pw, "relativenumber", false)
  setlocal(pw, "signcolumn", "no")
  M.fit_prompt(chat)
  api.nvim_win_set_cursor(tw, { api.nvim_buf_line_count(chat.buf), 0 })
  M.refresh_winbar(chat)
  prompt.show_context(chat)
end

--- Back to the sizes the layout asks for (VimResized, <C-w>=, windows opened or closed).
---@param chat acpchat.Chat
function M.resize(chat)
  local layout = config.options.layout
  if layout.position == "float" then
    return
  end
  local vertical, size, prompt_size = M.sizes(chat)
  for _, w in ipairs(wins_of(chat.buf)) do
    if api.nvim_win_get_config(w).relative == "" then
      if vertical then
        pcall(api.nvim_win_set_width, w, size)
      else
        pcall(api.nvim_win_set_height, w, size)
      end
    end
  end
  for _, w in ipairs(wins_of(chat.prompt_buf)) do
    if vertical then
      pcall(api.nvim_win_set_width, w, size)
    end
    pcall(api.nvim_win_set_height, w, prompt_size)
  end
  M.fit_prompt(chat)
  M.refresh_winbar(chat)
end

--- The prompt window grows with its text (wrapped lines counted) from layout.prompt_height up to
--- a third of the editor's lines, and shrinks back as the text goes.
---@param chat acpchat.Chat
function M.fit_prompt(chat)
  if config.options.layout.position == "float" then
    return
  end
  local base = select(3, M.sizes())
  local max = math.max(base, math.floor(vim.o.lines / 3))
  for _, w in ipairs(wins_of(chat.prompt_buf)) do
    local ok, h = pcall(api.nvim_win_text_height, w, {})
    local want = math.max(base, math.min(max, ok and h.all or base))
    if api.nvim_win_get_height(w) ~= want then
      pcall(api.nvim_win_set_height, w, want)
    end
  end
end

function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  return string.format("  ┆ thought (%d line%s)", n, n == 1 and "" or "s")
end

--- Whether the chat is shown in the current tab.
---@param chat acpchat.Chat
function M.visible(chat)
  return #wins_of(chat.buf) > 0 or #wins_of(chat.prompt_buf) > 0
end

---@param chat acpchat.Chat
function M.hide(chat)
  -- The size the user gave the transcript's split comes back when the chat is shown again.
  local vertical = M.sizes()
  for _, w in ipairs(wins_of(chat.buf)) do
    if api.nvim_win_get_config(w).relative == "" then
      chat.split_size = vertical and api.nvim_win_get_width(w) or api.nvim_win_get_height(w)
    end
  end
  close_wins(chat_wins(chat))
end

--- QuitPre: `:q` in a tab where only chat windows would be left closes them too, so one `:q`
--- closes the tab (or quits), as file explorers do. A window whose buffer has unsaved changes
--- that would stop the quit leaves everything as it is.
function M.quit_pre()
  local win = api.nvim_get_current_win()
  if api.nvim_win_get_config(win).relative ~= "" then
    return
  end
  if
    vim.bo.modified
    and (#api.nvim_list_tabpages() == 1 or not vim.o.hidden)
    and #vim.fn.win_findbuf(api.nvim_get_current_buf()) == 1
  then
    return
  end
  local chat_bufs = {}
  for _, c in pairs(registry.chats) do
    chat_bufs[c.buf], chat_bufs[c.prompt_buf] = true, true
  end
  local close = {}
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if w ~= win and api.nvim_win_get_config(w).relative == "" then
      if not chat_bufs[api.nvim_win_get_buf(w)] then
        return
      end
      close[#close + 1] = w
    end
  end
  for _, w in ipairs(close) do
    pcall(api.nvim_win_close, w, true)
  end
end

return M
