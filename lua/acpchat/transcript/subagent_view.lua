-- Subagents in the editor (src/session/features/subagents.ts; subagents.lua draws the block):
-- - a subagent's block folds its nested transcript (a manual fold under its header, closed when
--   it first appears; redrawn as the child works, the fold stays as the user left it);
-- - `gs` on the block opens the child's whole session in a view of its own, kept up to date.
-- Node holds the child sessions; this module only asks for them and draws.
local api = vim.api
local blocks = require("acpchat.transcript.blocks")
local bridge = require("acpchat.host.bridge")
local util = require("acpchat.util")
local subagents = require("acpchat.transcript.features.subagents")
local text = require("acpchat.transcript.text")

local M = {}

--- Open own views: "<chat>:<session id>" -> { buf, chat, session_id, busy, again }.
M.views = {}

--- Folds of rows first..last (0-based) in `win` deleted (the view and cursor kept).
local function delete_folds(win, first, last)
  api.nvim_win_call(win, function()
    local view = vim.fn.winsaveview()
    for row = first + 1, last + 1 do
      if vim.fn.foldlevel(row) > 0 then
        api.nvim_win_set_cursor(win, { row, 0 })
        vim.cmd("silent! normal! zD")
      end
    end
    vim.fn.winrestview(view)
  end)
end

--- Before a subagent's block is redrawn: how each window shows its fold ("closed", "open"), and
--- the old folds removed (a redraw makes new ones; folds must not pile up).
---@param buf integer
function M.folded(buf, first, last)
  local states = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local closed = api.nvim_win_call(win, function()
      return vim.fn.foldclosed(last + 1) ~= -1
    end)
    -- Open only when the user opened it: a fold too short to close ('foldminlines') reads as
    -- open to Vim but was never a choice, and neither is a missing fold.
    local open = not closed
      and api.nvim_win_call(win, function()
        for row = first + 1, last + 1 do
          if vim.fn.foldlevel(row) > 0 then
            return last + 1 - row + 1 > vim.wo.foldminlines
          end
        end
        return false
      end)
    states[win] = open and "open" or "closed"
    delete_folds(win, first, last)
  end
  return states
end

--- After a subagent's block was drawn at `first` (`n` lines): its nested transcript folded in
--- every window (closed unless `states` says the user had it open). Also keeps the view for
--- `gs`, and refreshes the subagent's own view when one is open.
---@param chat acpchat.Chat
function M.fold(chat, v, first, n, states)
  local rs = blocks.state(chat)
  local b = rs.blocks[v.id]
  if b then
    b.subagent = v
  end
  local head = #subagents.subagent_head(v, text).lines
  local from, to = first + head, first + n - 1
  if to >= from then
    for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
      blocks.fold(win, from, to)
      if states and states[win] == "open" then
        api.nvim_win_call(win, function()
          vim.cmd(string.format("silent! %d,%dfoldopen", from + 1, to + 1))
        end)
      end
    end
  end
  M.watch(chat)
  local key = chat.id .. ":" .. v.session_id
  if M.views[key] then
    M.refresh(M.views[key])
  end
end

--- A window that starts showing the transcript (the chat shown again) gets the folds too.
---@param chat acpchat.Chat
function M.watch(chat)
  if chat.subagent_watch then
    return
  end
  chat.subagent_watch = true
  api.nvim_create_autocmd("BufWinEnter", {
    buffer = chat.buf,
    callback = function()
      vim.schedule(function()
        if not api.nvim_buf_is_valid(chat.buf) then
          return
        end
        local rs = blocks.state(chat)
        for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
          for _, id in ipairs(rs.order) do
            local b = rs.blocks[id]
            if b.type == "subagent" and b.subagent then
              local first, last = blocks.range(chat.buf, rs, b)
              local from = first + #subagents.subagent_head(b.subagent, text).lines
              if
                last >= from
                and api.nvim_win_call(win, function()
                    return vim.fn.foldlevel(from + 1)
                  end)
                  == 0
              then
                blocks.fold(win, from, last)
              end
            end
          end
        end
      end)
    end,
  })
end

--- Draw a subagent's session (the `subagent` call's answer) into its view's buffer.
local function draw(view, res)
  local buf = view.buf
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local v = {
    session_id = view.session_id,
    title = res.title,
    description = res.description,
    state = res.state,
    stop_reason = res.stop_reason,
    can_cancel = res.can_cancel,
  }
  local b = subagents.subagent_head(v, text, true)
  b.add("")
  if not res.blocks or #res.blocks == 0 then
    b.add("(nothing yet)", "AcpChatNote")
  else
    subagents.nested(b, res.blocks, text, "")
  end
  local ns = api.nvim_create_namespace("acpchat_subagent_view")
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, b.lines)
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, h in ipairs(b.hls) do
    if h[3] == -1 then
      api.nvim_buf_set_extmark(
        buf,
        ns,
        h[1],
        h[2],
        { end_row = h[1] + 1, end_col = 0, hl_group = h[4], hl_eol = true, strict = false }
      )
    else
      api.nvim_buf_set_extmark(buf, ns, h[1], h[2], { end_col = h[3], hl_group = h[4], strict = false })
    end
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Ask Node for the subagent's session and redraw its view (one call at a time; a change while
--- one is on its way asks again when it comes back).
function M.refresh(view)
  if view.busy then
    view.again = true
    return
  end
  view.busy = true
  bridge.call("subagent", { chat = view.chat, session_id = view.session_id }, function(err, res)
    ---@cast res acpchat.reply.Subagent
    view.busy = false
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    draw(view, res)
    if view.again then
      view.again = false
      M.refresh(view)
    end
  end)
end

--- `gs`: the subagent block `b` (under the cursor) opened in a view of its own, beside the chat.
---@param chat acpchat.Chat
function M.open_at(chat, b)
  if not b or b.type ~= "subagent" or not b.subagent then
    return util.notify("acpchat: no subagent under the cursor", vim.log.levels.WARN)
  end
  local sid = b.subagent.session_id
  local key = chat.id .. ":" .. sid
  local view = M.views[key]
  if not view or not api.nvim_buf_is_valid(view.buf) then
    local buf = api.nvim_create_buf(false, true)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    pcall(api.nvim_buf_set_name, buf, string.format("acpchat://%d/subagent/%s", chat.id, sid))
    vim.bo[buf].filetype = "acpchat"
    view = { buf = buf, chat = chat.id, session_id = sid }
    M.views[key] = view
    vim.keymap.set(
      "n",
      "q",
      "<cmd>close<cr>",
      { buffer = buf, desc = "acpchat: close the subagent's view", nowait = true, silent = true }
    )
    vim.keymap.set("n", "<C-c>", function()
      -- Only when the agent allows it (the header says so); otherwise the error says why not.
      bridge.call("subagent_cancel", { chat = chat.id, session_id = sid }, function(err)
        if err then
          util.notify("acpchat: " .. err, vim.log.levels.WARN)
        end
      end)
    end, { buffer = buf, desc = "acpchat: stop the subagent's current work", nowait = true, silent = true })
    api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        M.views[key] = nil
      end,
    })
  end
  local wins = vim.fn.win_findbuf(view.buf)
  if #wins > 0 then
    api.nvim_set_current_win(wins[1])
  else
    -- Beside the chat, in the editor's area (not in the chat's narrow column).
    vim.cmd("wincmd p")
    local ft = vim.bo.filetype
    vim.cmd((ft == "acpchat" or ft == "acpchat-prompt") and "topleft vsplit" or "aboveleft split")
    api.nvim_win_set_buf(0, view.buf)
    vim.wo.wrap = true
    vim.wo.linebreak = true
  end
  M.refresh(view)
end

return M
