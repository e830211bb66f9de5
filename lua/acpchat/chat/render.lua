-- Applies render batches from Node to a chat's transcript buffer.
-- Appends touch only the end of the buffer; blocks are found through extmarks and redrawn in
-- place. Node sends at most one batch per frame, so each call here is one redraw's worth.
local text = require("acpchat.transcript.text")

local M = {}

local blocks = require("acpchat.transcript.blocks")
local layout = require("acpchat.chat.layout")
local subagent_view = require("acpchat.transcript.subagent_view")
local prompt = require("acpchat.chat.prompt")
local util = require("acpchat.util")
local history = require("acpchat.transcript.history")
local registry = require("acpchat.chat.registry")
local attention = require("acpchat.chat.attention")
local bridge = require("acpchat.host.bridge")
local follow_along = require("acpchat.editor.follow")
local long_line = require("acpchat.transcript.long_line")

local ns_hl = vim.api.nvim_create_namespace("acpchat_hl")
local ns_queue = vim.api.nvim_create_namespace("acpchat_queue")
M.ns_blocks, M.ns_hl, M.ns_queue = blocks.ns, ns_hl, ns_queue

local api = vim.api
local state, block_start, block_range = blocks.state, blocks.start, blocks.range

--- Whole-line highlight for `n` rows from `first` (user words, thoughts).
local function line_hls(buf, first, n, group)
  if not group then
    return
  end
  for r = first, first + n - 1 do
    api.nvim_buf_set_extmark(buf, ns_hl, r, 0, { line_hl_group = group })
  end
end

local function apply_hls(buf, first_row, hls, line_hl, nlines)
  for _, h in ipairs(hls) do
    local row, cs, ce, group = h[1] + first_row, h[2], h[3], h[4]
    if ce == -1 then
      api.nvim_buf_set_extmark(
        buf,
        ns_hl,
        row,
        cs,
        { end_row = row + 1, end_col = 0, hl_group = group, hl_eol = true, strict = false }
      )
    else
      api.nvim_buf_set_extmark(buf, ns_hl, row, cs, { end_col = ce, hl_group = group, strict = false })
    end
  end
  line_hls(buf, first_row, nlines, line_hl)
end

--- Blocks whose view is kept for the keys (a tool call's gd/gt/gf; za on a tool call's output
--- or a compaction's summary, which stays unfolded through updates).
local function keeps_view(v)
  return v.type == "tool" or v.type == "compaction" or v.type == "changes"
end

local function add(chat, v)
  local buf, rs = chat.buf, state(chat)
  local lines, hls, line_hl = text.block(v)
  local count = api.nvim_buf_line_count(buf)
  local empty = count == 1 and api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ""
  local prev = rs.blocks[rs.order[#rs.order]]
  -- A blank line between blocks, except under a turn header (the user's words belong to it).
  local sep = (empty or (prev and (prev.type == "turn" or prev.type == "reply"))) and 0 or 1
  local first
  if empty then
    api.nvim_buf_set_lines(buf, 0, 1, false, lines)
    first = 0
  else
    local ins = vim.list_extend(sep == 1 and { "" } or {}, lines)
    api.nvim_buf_set_lines(buf, count, count, false, ins)
    first = count + sep
  end
  -- A finished thought folds away.
  if prev and prev.type == "thought" then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      blocks.fold(win, block_start(buf, prev), first - 1 - sep)
    end
  end
  local mark = api.nvim_buf_set_extmark(buf, blocks.ns, first, 0, { right_gravity = false })
  local b = {
    mark = mark,
    sep = sep,
    type = v.type,
    index = #rs.order + 1,
    tool_call_id = v.tool_call_id,
    view = keeps_view(v) and v or nil,
  }
  rs.blocks[v.id] = b
  rs.order[#rs.order + 1] = v.id
  apply_hls(buf, first, hls, line_hl, #lines)
  if v.type == "subagent" then
    -- A subagent's nested transcript folds away.
    subagent_view.fold(chat, v, first, #lines, nil)
  end
end

local function append(chat, id, s)
  local buf, rs = chat.buf, state(chat)
  local b = rs.blocks[id]
  if not b then
    return
  end
  local prefix = text.prefix[b.type] or ""
  local parts = vim.split(s, "\n", { plain = true })
  for i = 2, #parts do
    parts[i] = prefix .. parts[i]
  end
  local last = api.nvim_buf_line_count(buf) - 1
  -- At the end of the last line without reading it; a line past long_line.MAX goes on below.
  local added = long_line.append(buf, parts)
  line_hls(buf, last + 1, added, text.line_hl[b.type])
end

local function update(chat, v)
  local buf, rs = chat.buf, state(chat)
  local b = rs.blocks[v.id]
  if not b then
    return add(chat, v)
  end
  local first, last = block_range(buf, rs, b)
  -- Output the user unfolded stays unfolded when the call is updated.
  if b.view and b.view.expanded and keeps_view(v) then
    v.expanded = true
  end
  local lines, hls, line_hl = text.block(v)
  -- A subagent's fold stays as the user left it (open or closed) when it is redrawn.
  local folded = v.type == "subagent" and subagent_view.folded(buf, first, last) or nil
  api.nvim_buf_clear_namespace(buf, ns_hl, first, last + 1)
  api.nvim_buf_set_lines(buf, first, last + 1, false, lines)
  b.view = keeps_view(v) and v or nil
  apply_hls(buf, first, hls, line_hl, #lines)
  if folded then
    subagent_view.fold(chat, v, first, #lines, folded)
  end
end

--- Windows showing the transcript whose cursor sits on the last line: they follow new text.
local function followers(buf)
  local out = {}
  local last = api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if api.nvim_win_get_cursor(win)[1] >= last then
      out[#out + 1] = win
    end
  end
  return out
end

--- Prompts waiting for the agent, shown below the transcript (not part of it: they are not
--- sent yet, and the reply to the running turn keeps streaming above them).
---@param chat acpchat.Chat
local function show_queue(chat)
  local buf = chat.buf
  api.nvim_buf_clear_namespace(buf, ns_queue, 0, -1)
  local queued = chat.status and chat.status.queued or {}
  if #queued == 0 then
    return
  end
  local lines = {}
  for _, q in ipairs(queued) do
    local first = vim.split(q.text, "\n", { plain = true })[1]
    lines[#lines + 1] = { { "⏳ queued: ", "AcpChatQueued" }, { first, "AcpChatQueued" } }
  end
  local last = api.nvim_buf_line_count(buf) - 1
  api.nvim_buf_set_extmark(buf, ns_queue, last, 0, { virt_lines = lines })
end

--- The queue also shows in the prompt window's winbar (always in sight): redrawn when the
--- queue changed, not with every batch (this runs once per frame while the agent streams).
---@param chat acpchat.Chat
local function show_queue_everywhere(chat)
  show_queue(chat)
  local queued = chat.status and chat.status.queued or {}
  local key = #queued > 0 and (#queued .. "\0" .. tostring(queued[1].text)) or ""
  if chat.prompt_buf and chat.queue_shown ~= key then
    chat.queue_shown = key
    prompt.show_context(chat)
  end
end

--- Clear the transcript: a reloaded session replays it. (A restart that does not reload draws
--- on below: a chat started again gives its blocks ids that never repeat those above.)
---@param chat acpchat.Chat
local function reset(chat)
  chat.render = nil
  api.nvim_buf_set_lines(chat.buf, 0, -1, false, {})
  api.nvim_buf_clear_namespace(chat.buf, -1, 0, -1)
end

local handlers = {
  append = function(chat, op)
    append(chat, op.id, op.text)
  end,
  add = function(chat, op)
    add(chat, op.block)
    -- A turn's changes block comes after its end (the end snapshot takes a moment): kept too.
    if op.block.type == "changes" then
      require("acpchat.transcript.history").save(chat)
    end
  end,
  update = function(chat, op)
    update(chat, op.block)
  end,
  meta = function(chat, op)
    -- The dead agent's status, sent before Node took the restart (chats.restart): stale.
    if chat.restarting and op.status.state == "crashed" then
      return
    end
    local before = chat.status and chat.status.state
    chat.status = op.status
    if op.status.state == "ready" then
      -- A restart that continued the session got there (chats.restart).
      chat.continuing = nil
    end
    -- A chat that crashed may be hidden: say so where the user looks.
    if op.status.state == "crashed" and before ~= "crashed" then
      attention.errored(chat)
      util.notify(
        string.format("acpchat: %s stopped (the chat says why); :AcpChat restarts it", chat.agent or "the agent"),
        vim.log.levels.WARN
      )
    end
    layout.refresh_winbar(chat)
    -- Resumed without a replay: what the plugin recorded for the session, marked as such.
    if op.status.continued_by == "resume" and op.status.state == "ready" and not chat.history_shown then
      chat.history_shown = true
      history.show(chat)
    end
  end,
  turn_end = function(chat, op)
    chat.last_stop = op.stop_reason
    chat.turn_ended = (chat.turn_ended or 0) + 1
    attention.turn_ended(chat)
    history.save(chat)
    vim.schedule(function()
      api.nvim_exec_autocmds(
        "User",
        { pattern = "AcpChatTurnEnd", data = { chat = chat.id, stop_reason = op.stop_reason }, modeline = false }
      )
    end)
  end,
  reset = reset,
  -- Not from Node: M.after_drawn's call, in its place after the ops received before it.
  after_drawn = function(_, op)
    op.fn()
  end,
}

local draw

--- Apply one batch of ops to chat `id` (the `render` event). Each op is drawn on its own: one
--- that fails is reported and the rest of the batch (and the turn's end) still happen.
---@param id integer
---@param ops acpchat.wire.RenderOp[]
function M.apply(id, ops)
  local chat = registry.get(id)
  if not chat or not api.nvim_buf_is_valid(chat.buf) then
    return
  end
  -- Ops of an earlier batch are still to be drawn: these follow them.
  if chat.render_backlog then
    vim.list_extend(chat.render_backlog, ops)
    return
  end
  draw(chat, id, ops)
end

--- Run `fn` once the ops received so far for `chat` are drawn (now, or after its backlog).
---@param chat acpchat.Chat
---@param fn fun()
function M.after_drawn(chat, fn)
  if chat.render_backlog then
    table.insert(chat.render_backlog, { op = "after_drawn", fn = fn })
  else
    fn()
  end
end

--- A batch's ops drawn for at most this long in one turn of the editor's loop; the rest next
--- turn (twenty tool calls redrawn in place took 60 ms in one batch).
local DRAW_NS = 8e6

draw = function(chat, id, ops)
  local buf = chat.buf
  local follow = followers(buf)
  local changed = false
  local t0 = vim.uv.hrtime()
  vim.bo[buf].modifiable = true
  local parked = long_line.park(buf, follow)
  for i, op in ipairs(ops) do
    local ok, err = xpcall(handlers[op.op] or function() end, debug.traceback, chat, op)
    if not ok then
      bridge.fail("drawing the transcript (" .. tostring(op.op) .. ")", err, id)
    end
    if op.op ~= "meta" and op.op ~= "turn_end" then
      changed = true
    end
    if (op.op == "add" or op.op == "update") and op.block.type == "tool" then
      -- Guarded as the ops are: the batch goes on, and parked cursors are put back.
      local fok, ferr = xpcall(follow_along.follow, debug.traceback, chat, op.block)
      if not fok then
        bridge.fail("following a tool call", ferr, id)
      end
    end
    if i < #ops and vim.uv.hrtime() - t0 > DRAW_NS then
      chat.render_backlog = vim.list_slice(ops, i + 1)
      vim.schedule(function()
        local rest = chat.render_backlog
        chat.render_backlog = nil
        if rest and api.nvim_buf_is_valid(chat.buf) then
          draw(chat, id, rest)
        end
      end)
      break
    end
  end
  long_line.unpark(buf, parked)
  show_queue_everywhere(chat)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if changed then
    local last = api.nvim_buf_line_count(buf)
    -- Before the cursor moves: how the windows show the last line decides what that costs.
    long_line.follow_view(chat, follow)
    for _, win in ipairs(follow) do
      -- Already there (a reply growing one long line): setting it again would make Neovim
      -- measure the whole wrapped line to place the view, in every batch.
      if api.nvim_win_is_valid(win) then
        local cur = api.nvim_win_get_cursor(win)
        if cur[1] ~= last or cur[2] ~= 0 then
          api.nvim_win_set_cursor(win, { last, 0 })
        end
      end
    end
    -- A window scrolled up keeps its place; its winbar says that new text arrived below.
    if #follow < #vim.fn.win_findbuf(buf) and not chat.unseen then
      chat.unseen = true
      layout.refresh_winbar(chat)
    end
  end
  chat.batches = (chat.batches or 0) + 1
  api.nvim_exec_autocmds("User", { pattern = "AcpChatUpdate", data = { chat = id }, modeline = false })
end

M.fold, M.refold, M.block_at, M.turn_rows = blocks.fold, blocks.refold, blocks.at, blocks.turn_rows

return M
