-- Turn checkpoints in the editor (|acpchat-checkpoints|): the quickfix list of a turn's hunks
-- (:AcpChatChanges), the take-back review of a changed file (gd on its line in a changes
-- block) and rewinds (:AcpChatRewind). Node keeps the checkpoints and does the work
-- (src/nvim/calls/changes-calls.ts); this asks, shows and reports.
local blocks = require("acpchat.transcript.blocks")
local bridge = require("acpchat.host.bridge")
local registry = require("acpchat.chat.registry")
local text = require("acpchat.transcript.text")
local util = require("acpchat.util")
local follow = require("acpchat.editor.follow")
local config = require("acpchat.config")

local api = vim.api
local M = {}

--- "3" -> 3, "all" -> "all", "" -> nil; anything else is an error.
local function turn_arg(arg, extra)
  arg = vim.trim(arg or "")
  if arg == "" then
    return nil
  end
  if arg == "all" or arg == extra then
    return arg
  end
  local n = tonumber(arg)
  if not n or n < 1 or n % 1 ~= 0 then
    error(string.format("expected a turn number%s, got %q", extra and (' or "' .. extra .. '"') or ' or "all"', arg), 0)
  end
  return n
end

--- :AcpChatChanges [turn|all]
function M.quickfix(arg)
  local chat = registry.need()
  if not chat then
    return
  end
  local turn = turn_arg(arg)
  bridge.call("changes", { chat = chat.id, turn = turn }, function(err, r)
    ---@cast r acpchat.reply.Changes
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    if #r.items == 0 then
      return util.notify("acpchat: " .. r.title .. ": no files changed")
    end
    vim.fn.setqflist({}, " ", { title = r.title, items = r.items })
    vim.cmd("botright copen")
  end)
end

--- Show a file's buffer in the editor window of this tab used last, else a new split.
local function show_file(path)
  local b = vim.fn.bufadd(path)
  vim.fn.bufload(b)
  -- The window gf and follow-along use: the editor window of this tab used last.
  local w = follow.editor_window({ tab = api.nvim_get_current_tabpage() })
  if w then
    api.nvim_win_set_buf(w, b)
    api.nvim_set_current_win(w)
    return b
  end
  vim.cmd("topleft split")
  api.nvim_win_set_buf(0, b)
  return b
end

--- A take-back or rewind left files whose edits of yours touch the agent's lines: ask about
--- each, one after another; yes puts both sides in its buffer with conflict markers.
---@param chat acpchat.Chat
function M.ask_conflicts(chat, paths, i)
  i = i or 1
  local path = paths and paths[i]
  if not path then
    return
  end
  local prompt = string.format(
    "%s: your edits touch the lines the agent changed, so nothing was taken back there.",
    text.flat(path, 200)
  )
  vim.ui.select(
    { "Put both in the buffer with conflict markers (u undoes)", "Leave the file as it is" },
    { prompt = prompt },
    function(_, idx)
      local function next_one()
        M.ask_conflicts(chat, paths, i + 1)
      end
      if idx ~= 1 then
        return next_one()
      end
      local abs = vim.fs.joinpath(chat.cwd or vim.fn.getcwd(), path)
      local b = vim.fn.bufadd(abs)
      vim.fn.bufload(b)
      bridge.call("changes_conflict", { chat = chat.id, path = path }, function(err, r)
        ---@cast r acpchat.reply.ChangesConflict
        if err then
          util.notify("acpchat: " .. err, vim.log.levels.WARN)
        else
          show_file(r.path)
          pcall(vim.fn.search, "^<<<<<<< ", "cw")
        end
        next_one()
      end)
    end
  )
end

--- The file of a changes block under the cursor: the block's view and the file's entry.
---@param chat acpchat.Chat
function M.file_at_cursor(chat)
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local b = blocks.at(chat, row)
  if not b or b.type ~= "changes" or not b.view then
    return nil
  end
  local offset = row - blocks.start(chat.buf, b)
  return b.view, (b.view.files or {})[offset]
end

--- gd on a file of a changes block: its take-back review. True when the cursor was on such a block.
---@param chat acpchat.Chat
function M.review_at_cursor(chat)
  local v, f = M.file_at_cursor(chat)
  if not v then
    return false
  end
  if not f then
    util.notify("acpchat: put the cursor on one of the files to review its change", vim.log.levels.WARN)
    return true
  end
  bridge.call("changes_review", { chat = chat.id, step = v.step, path = f.path }, function(err, r)
    ---@cast r acpchat.reply.ChangesReview
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    util.notify("acpchat: " .. r.outcome)
    M.ask_conflicts(chat, r.conflicts)
  end)
  return true
end

--- :AcpChatRewind[!] [turn|undo]: show what it puts back and ask (unless !), then do it.
function M.rewind(arg, bang)
  local chat = registry.need()
  if not chat then
    return
  end
  local turn = turn_arg(arg, "undo")
  if turn == "all" then
    error('expected a turn number or "undo", got "all"', 0)
  end
  local params = { chat = chat.id, turn = type(turn) == "number" and turn or nil, undo = turn == "undo" or nil }
  local function run()
    bridge.call("rewind", params, function(err, r)
      ---@cast r acpchat.reply.Rewind
      if err then
        return util.notify("acpchat: " .. err, vim.log.levels.WARN)
      end
      util.notify("acpchat: " .. (r.outcome or (r.title .. ": no files to put back")))
      M.ask_conflicts(chat, r.conflicts)
    end)
  end
  if bang then
    return run()
  end
  bridge.call("rewind", vim.tbl_extend("force", params, { dry_run = true }), function(err, r)
    ---@cast r acpchat.reply.Rewind
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.WARN)
    end
    if #r.files == 0 then
      return util.notify("acpchat: " .. r.title .. ": no files to put back")
    end
    local names = {}
    for i, f in ipairs(r.files) do
      if i > 8 then
        names[#names + 1] = string.format("… and %d more", #r.files - 8)
        break
      end
      names[#names + 1] = text.flat(f.path, 120)
    end
    local prompt = string.format(
      "%s: %d file%s (%s). Files you edited since are merged, not overwritten.",
      text.flat(r.title, 100),
      #r.files,
      #r.files == 1 and "" or "s",
      table.concat(names, ", ")
    )
    vim.ui.select({ "Rewind", "Cancel" }, { prompt = prompt }, function(choice)
      if choice == "Rewind" then
        run()
      end
    end)
  end)
end

--- :checkhealth: whether checkpoints can work here (git, its version), and where they are kept.
function M.health(health)
  health.start("acp-chat.nvim: checkpoints")
  local o = config.options.checkpoints
  if not o.enabled then
    return health.info(
      "off (checkpoints.enabled = false): turns are not recorded; :AcpChatChanges and :AcpChatRewind have nothing to show"
    )
  end
  if vim.fn.executable("git") == 0 then
    return health.warn(
      "off: git is not on PATH, so turns are not recorded (chats work otherwise)",
      { "Install git 2.25 or later" }
    )
  end
  local out = vim.trim(vim.fn.system({ "git", "--version" }))
  local major, minor = out:match("(%d+)%.(%d+)")
  major, minor = tonumber(major), tonumber(minor)
  if not major or major < 2 or (major == 2 and minor < 25) then
    return health.warn("off: " .. out .. " is too old (checkpoints need git 2.25 or later)")
  end
  health.ok(
    string.format(
      "on: %s; kept in %s (the user's .git is never touched)",
      out,
      vim.fn.stdpath("state") .. "/acpchat/checkpoints"
    )
  )
  health.info(
    string.format(
      "limits: folders of up to %d files; files over %d bytes are listed, not kept; chats older than %d days or past %d MB are pruned",
      o.max_files,
      o.max_file_bytes,
      o.max_age_days,
      o.max_size_mb
    )
  )
end

return M
