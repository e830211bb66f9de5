-- The chat's windows: the transcript and the prompt below it, opened and closed as a pair, kept
-- at sensible sizes when the editor is resized.
local config = require("acpchat.config")
local blocks = require("acpchat.blocks")
local text = require("acpchat.text")

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

function M.refresh_winbar(chat)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    local below = chat.unseen and not at_end(win, chat.buf)
    local width = api.nvim_win_get_width(win) - (below and 8 or 0)
    vim.wo[win].winbar = (below and "%#AcpChatNewBelow#↓ new ↓%* " or "") .. text.winbar(chat.status, width)
  end
end

--- The user sent a prompt: every window of the transcript goes to its end and follows it again.
function M.follow_end(chat)
  local last = api.nvim_buf_line_count(chat.buf)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    pcall(api.nvim_win_set_cursor, win, { last, 0 })
  end
  chat.unseen = false
  M.refresh_winbar(chat)
end

--- The cursor reached the end of the transcript: the "new text below" marker goes away.
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

--- Window options of a transcript window (set with the window: they never leak into others).
local function transcript_options(chat, w)
  local wo = vim.wo[w]
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = "no"
  wo.foldmethod = "manual"
  wo.foldtext = FOLDTEXT
  wo.foldenable = true
  wo.fillchars = "fold: "
  wo.conceallevel = 2
  wo.winfixwidth = true
  blocks.refold(chat, w)
end

local FOLDTEXT = "v:lua.require'acpchat.layout'.foldtext()"
local CHAT_OPTIONS = { "wrap", "linebreak", "number", "relativenumber", "signcolumn", "foldmethod", "foldtext", "foldenable", "fillchars", "conceallevel", "winfixwidth", "winfixheight" }

-- A window split from a transcript window inherits its window options (Vim copies them): a
-- window that shows another buffer gets the global values back, so nothing leaks.
api.nvim_create_autocmd({ "BufWinEnter", "WinNew" }, {
  group = api.nvim_create_augroup("AcpChatLayout", { clear = true }),
  callback = function()
    local win = api.nvim_get_current_win()
    local ft = vim.bo[api.nvim_win_get_buf(win)].filetype
    if ft == "acpchat" or ft == "acpchat-prompt" or vim.wo[win].foldtext ~= FOLDTEXT then
      return
    end
    for _, name in ipairs(CHAT_OPTIONS) do
      vim.wo[win][name] = api.nvim_get_option_value(name, { scope = "global" })
    end
  end,
})

--- Sizes the layout asks for, given the editor's size now.
function M.sizes()
  local layout = config.options.layout
  local vertical = layout.position == "right" or layout.position == "left"
  local total = vertical and vim.o.columns or vim.o.lines
  local size = size_of(total, layout.size)
  -- Never more than the editor minus room for one other window, never less than usable.
  size = math.max(vertical and 20 or 6, math.min(size, total - (vertical and 20 or 6)))
  local prompt = math.max(1, math.min(layout.prompt_height, math.floor(vim.o.lines / 4)))
  return vertical, size, prompt
end

--- Show the chat's windows in the current tab (or focus them when already shown).
function M.show(chat)
  local layout = config.options.layout
  local shown = wins_of(chat.buf)
  if #shown > 0 then
    local pw = wins_of(chat.prompt_buf)
    if #pw == 0 then
      -- The prompt window went away alone: bring it back under the transcript.
      api.nvim_set_current_win(shown[1])
      vim.cmd(string.format("belowright %dsplit", select(3, M.sizes())))
      api.nvim_win_set_buf(0, chat.prompt_buf)
      vim.wo.winfixheight = true
      return
    end
    api.nvim_set_current_win(pw[1])
    return
  end
  local tw
  if layout.position == "float" then
    local width = size_of(vim.o.columns, layout.size > 0.99 and layout.size or math.max(layout.size, 0.6))
    local height = math.floor(vim.o.lines * 0.8)
    local row = math.floor((vim.o.lines - height) / 2)
    local col = math.floor((vim.o.columns - width) / 2)
    tw = api.nvim_open_win(chat.buf, true, { relative = "editor", row = row, col = col, width = width, height = height - layout.prompt_height - 2, border = "rounded" })
    api.nvim_open_win(chat.prompt_buf, true, { relative = "editor", row = row + height - layout.prompt_height, col = col, width = width, height = layout.prompt_height, border = "rounded" })
  else
    local vertical, size, prompt = M.sizes()
    local mods = ({ right = "botright vertical", left = "topleft vertical", top = "topleft", bottom = "botright" })[layout.position]
    vim.cmd(string.format("%s %dsplit", mods, size))
    tw = api.nvim_get_current_win()
    api.nvim_win_set_buf(tw, chat.buf)
    vim.cmd(string.format("belowright %dsplit", prompt))
    api.nvim_win_set_buf(0, chat.prompt_buf)
    vim.wo.winfixheight = true
    if not vertical then
      vim.wo[tw].winfixheight = true
    end
  end
  transcript_options(chat, tw)
  api.nvim_win_set_cursor(tw, { api.nvim_buf_line_count(chat.buf), 0 })
  M.refresh_winbar(chat)
  require("acpchat.prompt").show_context(chat)
end

--- Back to the sizes the layout asks for (VimResized, <C-w>=, windows opened or closed).
function M.resize(chat)
  local layout = config.options.layout
  if layout.position == "float" then
    return
  end
  local vertical, size, prompt = M.sizes()
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
    pcall(api.nvim_win_set_height, w, prompt)
  end
  M.refresh_winbar(chat)
end

function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  return string.format("  ┆ thought (%d line%s)", n, n == 1 and "" or "s")
end

--- Whether the chat is shown in the current tab.
function M.visible(chat)
  return #wins_of(chat.buf) > 0 or #wins_of(chat.prompt_buf) > 0
end

function M.hide(chat)
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      if #api.nvim_list_wins() > 1 and api.nvim_win_is_valid(w) then
        pcall(api.nvim_win_close, w, true)
      end
    end
  end
end

return M
