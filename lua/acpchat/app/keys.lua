-- The chat's keys: in the prompt (send, cancel) and in the transcript (hide, move between
-- turns, open a tool call's location, terminal output or diff).
local config = require("acpchat.config")
local blocks = require("acpchat.transcript.blocks")
local util = require("acpchat.util")
local bridge = require("acpchat.host.bridge")
local guard = require("acpchat.chat.guard").guard
local follow = require("acpchat.editor.follow")
local waiting = require("acpchat.chat.waiting")
local prompt_history = require("acpchat.complete.prompt_history")
local text = require("acpchat.transcript.text")
-- Not at the top, and not for a circle: what a key opens loads when the key is first used,
-- so opening a chat stays light (the editor never blocks).

local api = vim.api
local M = {}

local function map(buf, mode, lhs, rhs, desc)
  if lhs and lhs ~= false and lhs ~= "" then
    vim.keymap.set(
      mode,
      lhs,
      guard(desc, rhs),
      { buffer = buf, desc = "acpchat: " .. desc, nowait = true, silent = true }
    )
  end
end

local function jump_turn(chat, dir)
  local rows = blocks.turn_rows(chat)
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
---@param chat acpchat.Chat
local function tool_at_cursor(chat)
  local b = blocks.at(chat, api.nvim_win_get_cursor(0)[1] - 1)
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
    return util.notify("acpchat: no location under the cursor", vim.log.levels.WARN)
  end
  if not follow.openable(chat, path) then
    return util.notify(
      "acpchat: not opened: " .. path .. " is not a regular file inside the session's folder",
      vim.log.levels.WARN
    )
  end
  -- Open in the window of this tab that shows the file, else the last editor window, else a
  -- new one: never in the chat, and never a new split each time.
  local want = vim.fn.fnamemodify(path, ":p")
  local target
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if
      api.nvim_win_get_config(w).relative == ""
      and vim.fn.fnamemodify(api.nvim_buf_get_name(api.nvim_win_get_buf(w)), ":p") == want
    then
      target = w
    end
  end
  target = target or follow.editor_window({ tab = api.nvim_get_current_tabpage() })
  if target then
    api.nvim_set_current_win(target)
  else
    vim.cmd("topleft vsplit")
  end
  if vim.fn.fnamemodify(api.nvim_buf_get_name(0), ":p") ~= want then
    vim.cmd("edit " .. vim.fn.fnameescape(path))
  end
  if tonumber(lnum) then
    pcall(api.nvim_win_set_cursor, 0, { tonumber(lnum), 0 })
  end
end

--- `actions`: send, cancel and hide, from chats.lua.
---@param chat acpchat.Chat
function M.setup(chat, actions)
  local k = config.options.keymaps
  map(chat.prompt_buf, "n", k.send, function()
    actions.send(chat)
  end, "send the prompt")
  map(chat.prompt_buf, "i", k.send_insert, function()
    actions.send(chat)
  end, "send the prompt")
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    map(b, { "n", "i" }, k.cancel, function()
      actions.cancel(chat)
    end, "cancel the turn")
  end
  for _, b in ipairs({ chat.buf, chat.prompt_buf }) do
    map(b, { "n", "i" }, k.answer, function()
      if not waiting.answer(chat.id) then
        util.notify("acpchat: no question waits for an answer")
      end
    end, "open the oldest question that waits")
  end
  map(chat.prompt_buf, { "n", "i" }, k.history_prev, function()
    prompt_history.step(chat, 1)
  end, "previous prompt")
  map(chat.prompt_buf, { "n", "i" }, k.history_next, function()
    prompt_history.step(chat, -1)
  end, "next prompt")
  map(chat.buf, "n", k.focus_prompt, function()
    local w = vim.fn.win_findbuf(chat.prompt_buf)[1]
    if w then
      api.nvim_set_current_win(w)
      vim.cmd("startinsert!")
    end
  end, "go to the prompt")
  map(chat.buf, "n", k.hide, function()
    actions.hide(chat)
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
    require("acpchat.transcript.terminal_view").show(chat, term)
  end, "show the terminal output")
  map(chat.buf, "n", k.cancel_tool, function()
    local b = tool_at_cursor(chat)
    if not b or not b.view then
      return util.notify("acpchat: no tool call under the cursor", vim.log.levels.WARN)
    end
    -- Node decides (it holds what the agent allows); the error says why not.
    bridge.call("tool_cancel", { chat = chat.id, tool_call_id = b.view.tool_call_id }, function(err)
      if err then
        util.notify("acpchat: " .. err, vim.log.levels.WARN)
      end
    end)
  end, "cancel the tool call or its terminal")
  map(chat.buf, "n", k.expand_output, function()
    local b = blocks.at(chat, api.nvim_win_get_cursor(0)[1] - 1)
    if not b or not b.view or (b.type ~= "tool" and b.type ~= "compaction") then
      return vim.cmd("normal! " .. vim.v.count1 .. "za")
    end
    text.toggle_expanded(b.view)
    require("acpchat.chat.render").apply(chat.id, { { op = "update", block = b.view } })
  end, "show or fold the tool call's output")
  map(chat.buf, "n", k.open_subagent, function()
    local b = blocks.at(chat, api.nvim_win_get_cursor(0)[1] - 1)
    require("acpchat.transcript.subagent_view").open_at(chat, b)
  end, "open the subagent's session in its own view")
  map(chat.buf, "n", k.show_diff, function()
    -- On a file of a turn's changes: its take-back review.
    if require("acpchat.checkpoints.changes").review_at_cursor(chat) then
      return
    end
    local b = tool_at_cursor(chat)
    local history_end = require("acpchat.transcript.history").end_row(chat)
    if not b and history_end and api.nvim_win_get_cursor(0)[1] - 1 <= history_end then
      return util.notify(
        "acpchat: this is local history from before the resume: its tool calls and checkpoints stayed with the chat that ran them (gd works on the turns below it)",
        vim.log.levels.WARN
      )
    end
    if not b then
      return util.notify("acpchat: no tool call under the cursor", vim.log.levels.WARN)
    end
    require("acpchat.diff.view").show_tool_diff(chat, b.tool_call_id)
  end, "show the tool call's diff")
  map(chat.buf, "n", k.open_media, function()
    require("acpchat.chat.media").open(chat)
  end, "open the image or audio under the cursor")
  map(chat.buf, "n", k.save_media, function()
    require("acpchat.chat.media").save(chat)
  end, "save the image or audio under the cursor")
end

return M
