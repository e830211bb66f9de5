-- Follow-along: a running tool call's location is shown in the last editor window, keeping focus.
local config = require("acpchat.config")

local api = vim.api
local M = {}

--- The window of `tab` the user worked in last among those `accept(win)` takes (never a float).
---@param tab integer
---@param accept fun(win: integer): boolean
---@return integer?
function M.last_used(tab, accept)
  local best, best_time
  for _, w in ipairs(api.nvim_tabpage_list_wins(tab)) do
    if api.nvim_win_get_config(w).relative == "" and accept(w) then
      local t = vim.fn.getwininfo(w)[1]
      ---@diagnostic disable-next-line: undefined-field (getwininfo() has it; the meta lacks it)
      local last = (t and t.lastused) or 0
      if not best or last > best_time then
        best, best_time = w, last
      end
    end
  end
  return best
end

--- The editor window of the chat's tab the user worked in last (not a chat window, nor a
--- special one such as the quickfix list).
---@param chat { tab: integer } a chat, or just its tab
function M.editor_window(chat)
  if not chat.tab or not api.nvim_tabpage_is_valid(chat.tab) then
    return nil
  end
  return M.last_used(chat.tab, function(w)
    local b = api.nvim_win_get_buf(w)
    -- A file's window: not a chat's, and not a special one (quickfix, help, terminal) that a
    -- file must never replace.
    return vim.bo[b].buftype == "" and not vim.bo[b].filetype:match("^acpchat")
  end)
end

--- Whether the editor may open `path` for the agent: a regular file (never a FIFO or a device,
--- which would block the editor) inside the chat's cwd or a root the user added.
---@param chat acpchat.Chat
---@param path string
function M.openable(chat, path)
  local real = type(path) == "string" and vim.uv.fs_realpath(path)
  local st = real and vim.uv.fs_stat(real)
  if not st or st.type ~= "file" then
    return false
  end
  ---@cast real string
  local roots = { chat.cwd }
  vim.list_extend(roots, config.options.fs.extra_roots or {})
  for _, root in ipairs(roots) do
    local r = vim.uv.fs_realpath(root)
    if r and (real == r or vim.startswith(real, r:gsub("/$", "") .. "/")) then
      return true
    end
  end
  return false
end

---@param chat acpchat.Chat
function M.follow(chat, view)
  if not config.options.follow or view.status ~= "in_progress" then
    return
  end
  local loc = view.locations and view.locations[1]
  if not loc then
    return
  end
  -- Every update of a running call comes here (once per render batch): the location already
  -- shown is skipped before the file system is asked anything.
  local key = loc.path .. ":" .. tostring(loc.line)
  if chat.followed == key or not M.openable(chat, loc.path) then
    return
  end
  chat.followed = key
  vim.schedule(function()
    local w = M.editor_window(chat)
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

return M
