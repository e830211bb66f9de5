-- Readable tab labels for chat tabs. Vim's own tab label is the current window's buffer name
-- with its folders shortened: a chat's prompt reads `a//1/prompt`. When the user has no
-- 'tabline' of their own (nor a plugin that draws one), the plugin sets one that draws every
-- tab as Vim does (window count, `+` for a modified buffer, the shortened name, the close
-- button), except that a tab whose window in use is a chat's reads `claude: <title>` (or
-- `claude #1`), one of the plugin's own views (a review, a terminal's output) reads by its
-- file name, and a tab that names itself (t:acpchat_label: :AcpChatReview's, `review turns
-- 1-2: a.txt`) by that name. A 'tabline' set by anyone else is never touched.
local api = vim.api

local M = {}

M.EXPR = "%!v:lua.require'acpchat.chat.tabline'.render()"

--- Set our 'tabline' when nobody has one (its global value is empty) and the user did not say
--- no (vim.g.acpchat_tabline = false).
function M.install()
  if vim.go.tabline == "" and vim.g.acpchat_tabline ~= false then
    vim.go.tabline = M.EXPR
  end
end

--- The chat whose transcript or prompt `buf` is.
local function chat_of(buf)
  for _, c in pairs(require("acpchat.chat.registry").chats) do
    if c.buf == buf or c.prompt_buf == buf then
      return c
    end
  end
end

local function cut(s, n)
  s = s:gsub("%s+", " ")
  if vim.fn.strchars(s) > n then
    return vim.fn.strcharpart(s, 0, n - 1) .. "…"
  end
  return s
end

--- The label of the buffer shown in the window in use of a tab.
---@param buf integer
---@return string
function M.buffer_label(buf)
  local chat = chat_of(buf)
  if chat then
    local title = chat.status and chat.status.title
    if type(title) == "string" and title ~= "" then
      return string.format("%s: %s", chat.agent, cut(title, 24))
    end
    return string.format("%s #%d", chat.agent, chat.id)
  end
  local name = api.nvim_buf_get_name(buf)
  if vim.startswith(name, "acpchat://") then
    return "acpchat: " .. cut(vim.fn.fnamemodify(name, ":t"), 30)
  end
  if vim.bo[buf].buftype == "quickfix" then
    return "[Quickfix List]"
  end
  if name == "" then
    return vim.bo[buf].buftype == "nofile" and "[Scratch]" or "[No Name]"
  end
  -- A URI-like name (health://, fugitive://, man://) is not a path: shortened, it reads `h//`.
  if name:match("^%a[%w+.-]*://") then
    return cut(name, 30)
  end
  return vim.fn.pathshorten(vim.fn.fnamemodify(name, ":~:."))
end

--- Tab `tab`'s label as Vim draws it: "3+ name" (windows, a modified buffer), or just "name".
local function tab_label(tab)
  local wins = api.nvim_tabpage_list_wins(tab)
  local normal = vim.tbl_filter(function(w)
    return api.nvim_win_get_config(w).relative == ""
  end, wins)
  local modified = false
  for _, w in ipairs(wins) do
    local b = api.nvim_win_get_buf(w)
    if vim.bo[b].modified and vim.bo[b].buftype ~= "prompt" and not chat_of(b) then
      modified = true
    end
  end
  local prefix = (#normal > 1 and tostring(#normal) or "") .. (modified and "+" or "")
  -- A view of the plugin's that names its own tab (the review loop: its range and file).
  local own = vim.t[tab].acpchat_label
  local label = type(own) == "string" and own ~= "" and cut(own, 40)
    or M.buffer_label(api.nvim_win_get_buf(api.nvim_tabpage_get_win(tab)))
  return (prefix ~= "" and (prefix .. " ") or "") .. label
end

--- The 'tabline' expression: every tab, Vim's highlights, mouse clicks, the close button.
function M.render()
  local ok, out = pcall(function()
    local parts = {}
    local current = api.nvim_get_current_tabpage()
    local tabs = api.nvim_list_tabpages()
    for i, tab in ipairs(tabs) do
      local hl = tab == current and "%#TabLineSel#" or "%#TabLine#"
      parts[#parts + 1] = string.format("%s%%%dT %s ", hl, i, tab_label(tab):gsub("%%", "%%%%"))
    end
    parts[#parts + 1] = "%#TabLineFill#%T"
    if #tabs > 1 then
      parts[#parts + 1] = "%=%#TabLine#%999XX"
    end
    return table.concat(parts)
  end)
  return ok and out or ""
end

return M
