-- Read-only diffs: a tool call's diffs (gd on its block), shown in a diff tab
-- (acpchat.diff.tab) that q closes.
local bridge = require("acpchat.host.bridge")
local diff_tab = require("acpchat.diff.tab")
local util = require("acpchat.util")

local api = vim.api
local M = {}

--- A read-only diff (tool call content). `on_close` runs after. Filled a slice per turn of
--- the event loop as a review is; past max_diff_lines or max_diff_bytes, side by side without
--- diff mode; the winbar says what was left off for size.
---@param path string
function M.show_readonly(path, old_text, new_text, on_close)
  local ft = vim.filetype.match({ filename = path }) or ""
  local n = tostring(vim.uv.hrtime())
  local tail = vim.fn.fnamemodify(path, ":t")
  local left = diff_tab.new_scratch("acpchat://diff/" .. n .. "/old/" .. tail)
  local right = diff_tab.new_scratch("acpchat://diff/" .. n .. "/new/" .. tail)
  local old, new = {}, {}
  local v = { key = "diff" .. n }
  local function alive()
    return api.nvim_buf_is_valid(left) and api.nvim_buf_is_valid(right)
  end
  local function open()
    if not alive() then
      return
    end
    local bytes = #old_text + #new_text
    local plain = #old + #new > diff_tab.max_diff_lines
      or bytes > diff_tab.max_diff_bytes
      or diff_tab.has_line_over(old, diff_tab.max_diff_line_bytes)
      or diff_tab.has_line_over(new, diff_tab.max_diff_line_bytes)
    v.tab, v.lw, v.rw = diff_tab.open(left, right, plain)
    local inline_off = not plain and bytes > diff_tab.max_inline_bytes and diff_tab.light_diffopt(v)
    local highlight_off = ft ~= ""
      and not (diff_tab.highlightable(#old, #old_text) and diff_tab.highlightable(#new, #new_text))
    local note = (plain and " · too large for diff mode: side by side" or "")
      .. diff_tab.size_notes(highlight_off, inline_off)
    for _, w in ipairs({ v.lw, v.rw }) do
      vim.wo[w].winbar = (
        ("acpchat diff: " .. vim.fn.fnamemodify(path, ":~:.") .. "  (q closes)" .. note):gsub("%%", "%%%%")
      )
    end
  end
  local closed = false
  local function close()
    if closed then
      return
    end
    closed = true
    diff_tab.close(v)
    for _, b in ipairs({ left, right }) do
      if api.nvim_buf_is_valid(b) then
        pcall(api.nvim_buf_delete, b, { force = true })
      end
    end
    if on_close then
      vim.schedule(on_close)
    end
  end
  for _, b in ipairs({ left, right }) do
    vim.keymap.set("n", "q", close, { buffer = b, nowait = true, desc = "acpchat: close the diff" })
    api.nvim_create_autocmd("BufWipeout", { buffer = b, once = true, callback = close })
  end
  -- Each step in a turn of its own: the fills, each side's filetype, the tab.
  local steps = {
    function(next)
      diff_tab.fill(left, old_text, nil, old, next)
    end,
    function(next)
      diff_tab.fill(right, new_text, nil, new, next)
    end,
    function(next)
      diff_tab.set_filetype(left, ft, #old, #old_text)
      vim.schedule(next)
    end,
    function(next)
      diff_tab.set_filetype(right, ft, #new, #new_text)
      vim.schedule(next)
    end,
    function()
      open()
    end,
  }
  local function run(i)
    if closed or not alive() then
      return
    end
    steps[i](function()
      run(i + 1)
    end)
  end
  run(1)
end

--- gd on a tool call block: its diffs, read-only.
---@param chat acpchat.Chat
function M.show_tool_diff(chat, tool_call_id)
  bridge.call("tool_diffs", { chat = chat.id, tool_call_id = tool_call_id }, function(err, diffs)
    ---@cast diffs acpchat.reply.ToolDiffs
    if err or #diffs == 0 then
      return util.notify("acpchat: this tool call has no diff", vim.log.levels.WARN)
    end
    for _, d in ipairs(diffs) do
      M.show_readonly(d.path, d.old_text or "", d.new_text)
    end
  end)
end

return M
