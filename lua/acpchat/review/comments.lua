-- Review comments (|acpchat-review-loop|): :[range]AcpChatComment {text} anchors a comment to
-- lines of a project file (an extmark in its buffer, so it follows edits, shown as virtual
-- text); :AcpChatReview send sends every pending one to the agent as one prompt, each with its
-- path:line, the lines as they are then and the text, and marks them sent. Comments are the
-- user's, kept here per chat until removed (Node only ever sees the prompt).
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local text = require("acpchat.transcript.text")

local api = vim.api
local M = {}

local ns = api.nvim_create_namespace("acpchat_comments")

---@class acpchat.Comment
---@field id integer
---@field chat integer
---@field path string absolute
---@field buf integer the file's buffer (the extmark's)
---@field mark integer
---@field text string
---@field sent boolean?

---@type table<integer, acpchat.Comment[]>
M.by_chat = {}
local next_id = 1

--- Called when comments change (the review loop redraws its list).
---@type fun(chat_id: integer)?
M.on_change = nil

local function changed(chat_id)
  if M.on_change then
    M.on_change(chat_id)
  end
end

--- A comment's lines as they are now: first and last (1-based).
---@param c acpchat.Comment
---@return integer? first, integer? last
function M.range(c)
  if not api.nvim_buf_is_valid(c.buf) then
    return nil
  end
  local m = api.nvim_buf_get_extmark_by_id(c.buf, ns, c.mark, { details = true })
  if not m[1] then
    return nil
  end
  local last = m[3] and m[3].end_row or m[1]
  return m[1] + 1, math.max(last, m[1]) + 1
end

local function draw(c)
  local first, last = M.range(c)
  if not first then
    return
  end
  local label = (c.sent and "✓ sent: " or "◆ comment: ") .. text.flat(c.text, 200)
  api.nvim_buf_set_extmark(c.buf, ns, first - 1, 0, {
    id = c.mark,
    end_row = last - 1,
    virt_text = { { "  " .. label, c.sent and "AcpChatCommentSent" or "AcpChatComment" } },
    virt_text_pos = "eol",
    right_gravity = false,
    end_right_gravity = true,
  })
end

--- The chat comments go to: the review's (its tab), else this tab's, else the only one.
---@return acpchat.Chat?
function M.chat()
  local c = registry.current()
  if c then
    return c
  end
  local all = vim.tbl_values(registry.chats)
  if #all == 1 then
    return all[1]
  end
  return registry.need()
end

--- Where a comment on the current buffer lands: the file (its buffer) and the lines. A review's
--- left side (the file as the turns left it) stands for the file itself.
local function target(line1, line2)
  local buf = api.nvim_get_current_buf()
  local name = api.nvim_buf_get_name(buf)
  if name:match("^acpchat://review/") then
    local r
    for _, rv in pairs(require("acpchat.ask.review").open_reviews) do
      if rv.left == buf then
        r = rv
      elseif rv.right == buf then
        error("comment on the left side of the review (the file as it is now), not on the version before", 0)
      end
    end
    if not r then
      error("this review is closed: comment on the file itself", 0)
    end
    local fb = vim.fn.bufadd(r.path)
    vim.fn.bufload(fb)
    return fb, r.path, line1, line2, buf
  end
  if name == "" or name:match("^%w+://") or vim.bo[buf].buftype ~= "" then
    error("comments go on lines of a project file (or of a review's left side)", 0)
  end
  return buf, vim.fn.fnamemodify(name, ":p"), line1, line2
end

--- :[range]AcpChatComment {text}: a comment on the lines; with ! and no text, the comments on
--- those lines are removed.
function M.command(o)
  local chat = M.chat()
  if not chat then
    return
  end
  local buf, path, line1, line2, shown = target(o.line1, o.line2)
  if o.bang then
    local n = 0
    for _, c in ipairs(vim.list_slice(M.by_chat[chat.id] or {})) do
      local first, last = M.range(c)
      if c.path == path and first and first <= line2 and last >= line1 then
        M.remove(c)
        n = n + 1
      end
    end
    return util.notify(string.format("acpchat: %d comment%s removed", n, n == 1 and "" or "s"))
  end
  local body = vim.trim(o.args or "")
  if body == "" then
    error("a comment needs its text: :AcpChatComment fix this here", 0)
  end
  local count = api.nvim_buf_line_count(buf)
  line1, line2 = math.min(line1, count), math.min(line2, count)
  local c = { id = next_id, chat = chat.id, path = path, buf = buf, text = body }
  next_id = next_id + 1
  c.mark = api.nvim_buf_set_extmark(buf, ns, line1 - 1, 0, { end_row = line2 - 1 })
  draw(c)
  if shown then
    -- Made on a review's left side: shown there too, while that review is open.
    api.nvim_buf_set_extmark(shown, ns, line1 - 1, 0, {
      virt_text = { { "  ◆ comment: " .. text.flat(body, 200), "AcpChatComment" } },
      virt_text_pos = "eol",
    })
  end
  M.by_chat[chat.id] = M.by_chat[chat.id] or {}
  table.insert(M.by_chat[chat.id], c)
  changed(chat.id)
  util.notify(
    string.format(
      "acpchat: comment on %s:%d added (:AcpChatReview send sends it)",
      vim.fn.fnamemodify(path, ":~:."),
      line1
    )
  )
end

---@param c acpchat.Comment
function M.remove(c)
  local list = M.by_chat[c.chat] or {}
  for i, x in ipairs(list) do
    if x == c then
      table.remove(list, i)
      break
    end
  end
  if api.nvim_buf_is_valid(c.buf) then
    pcall(api.nvim_buf_del_extmark, c.buf, ns, c.mark)
  end
  changed(c.chat)
end

---@param chat_id integer
---@return acpchat.Comment[]
function M.pending(chat_id)
  return vim.tbl_filter(function(c)
    return not c.sent
  end, M.by_chat[chat_id] or {})
end

--- A comment's place as the agent reads it: path (relative to the chat's folder) and lines.
function M.where(c, cwd)
  local path = c.path
  if cwd and vim.startswith(path, cwd .. "/") then
    path = path:sub(#cwd + 2)
  end
  local first, last = M.range(c)
  if not first then
    return path, nil, nil
  end
  return path, first, last
end

--- The prompt of every pending comment: path:line, the lines as they are now, the text.
---@param chat acpchat.Chat
---@param list acpchat.Comment[]
function M.prompt(chat, list)
  local cwd = chat.cwd or vim.fn.getcwd()
  local out = {
    string.format(
      "Review comments on your changes (%d): each gives the file and line, the lines as they are now, and my comment. Please address them.",
      #list
    ),
  }
  for _, c in ipairs(list) do
    local path, first, last = M.where(c, cwd)
    out[#out + 1] = ""
    if not first then
      out[#out + 1] = string.format("%s (its lines were deleted)", path)
    else
      out[#out + 1] = first == last and string.format("%s:%d", path, first)
        or string.format("%s:%d-%d", path, first, last)
      local ft = vim.bo[c.buf].filetype
      out[#out + 1] = "```" .. (ft or "")
      vim.list_extend(out, api.nvim_buf_get_lines(c.buf, first - 1, last, false))
      out[#out + 1] = "```"
    end
    out[#out + 1] = "Comment: " .. c.text
  end
  return table.concat(out, "\n")
end

--- :AcpChatReview send: every pending comment in one prompt; marked sent once Node has it.
---@param chat acpchat.Chat
function M.send(chat)
  local list = M.pending(chat.id)
  if #list == 0 then
    return util.notify("acpchat: no pending comments (add one with :AcpChatComment {text})")
  end
  require("acpchat.app.chats").send(chat, M.prompt(chat, list), function(ok)
    if not ok then
      return
    end
    for _, c in ipairs(list) do
      c.sent = true
      draw(c)
    end
    changed(chat.id)
    util.notify(string.format("acpchat: %d comment%s sent to the agent", #list, #list == 1 and "" or "s"))
  end)
end

return M
