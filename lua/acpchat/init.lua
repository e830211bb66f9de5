-- acp-chat.nvim: chat with coding agents (Agent Client Protocol) inside Neovim.
-- Public Lua API; the :AcpChat* commands call these.
local config = require("acpchat.config")
local util = require("acpchat.util")

local M = {}

--- Optional: override defaults. Invalid options are reported and the previous ones kept.
function M.setup(opts)
  local ok, err = config.set(opts)
  if not ok then
    vim.notify(err, vim.log.levels.ERROR, { title = "acpchat" })
    return false
  end
  require("acpchat.highlights").setup()
  return true
end

local function chat_mod()
  return require("acpchat.chat")
end

--- :AcpChat[!] [agent]: focus this tab's chat, or start one (always a new one with bang).
function M.open(agent, new)
  local chats = chat_mod()
  local cur = chats.current()
  if cur and not new and (agent == nil or agent == cur.agent) then
    chats.show(cur)
    -- A chat whose agent died comes back: started again, its session continued if possible.
    if cur.status and cur.status.status == "failed" then
      chats.restart(cur)
    end
    return cur
  end
  local chat = chats.create(agent)
  if chat then
    chats.show(chat)
    vim.cmd("startinsert")
  end
  return chat
end

local function need_chat()
  return chat_mod().need()
end

function M.send(text)
  local c = chat_mod().current() or M.open(nil, false)
  if c then
    return chat_mod().send(c, text)
  end
end

function M.cancel()
  local c = need_chat()
  if c then
    chat_mod().cancel(c)
  end
end

function M.close()
  local c = need_chat()
  if c then
    chat_mod().close(c)
  end
end

function M.toggle()
  local chats = chat_mod()
  local c = chats.current()
  if not c then
    return M.open(nil, false)
  end
  for _, w in ipairs(vim.fn.win_findbuf(c.buf)) do
    if vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage() then
      return chats.hide(c)
    end
  end
  chats.show(c)
end

--- :[range]AcpChatAdd [file]: add context to the next prompt.
function M.add(opts)
  local c = need_chat()
  if not c then
    return
  end
  local item
  if opts.file and opts.file ~= "" then
    item = { type = "file", path = vim.fn.fnamemodify(opts.file, ":p") }
  else
    local buf = vim.api.nvim_get_current_buf()
    local path = vim.api.nvim_buf_get_name(buf)
    if path == "" or path:match("^acpchat://") then
      return util.notify("acpchat: nothing to add from this buffer", vim.log.levels.WARN)
    end
    if opts.range and opts.range > 0 then
      local lines = vim.api.nvim_buf_get_lines(buf, opts.line1 - 1, opts.line2, false)
      item = { type = "range", path = path, start = opts.line1, ["end"] = opts.line2, text = table.concat(lines, "\n"), filetype = vim.bo[buf].filetype }
    else
      item = { type = "file", path = path }
    end
  end
  table.insert(c.context, item)
  chat_mod().show_context(c)
  util.notify("acpchat: added " .. chat_mod().context_label(item) .. " to the next prompt")
end

--- For statuslines: agent, state, mode, model, usage of this tab's chat (nil without one).
function M.status()
  local c = chat_mod().current()
  if not c or not c.status then
    return nil
  end
  local s = c.status
  return {
    id = c.id,
    agent = s.agent,
    title = s.title ~= vim.NIL and s.title or nil,
    state = s.state,
    status = s.status,
    mode = s.mode ~= vim.NIL and s.mode or nil,
    model = s.model ~= vim.NIL and s.model or nil,
    usage = s.usage ~= vim.NIL and s.usage or nil,
  }
end

--- Stop every agent (VimLeavePre).
function M.shutdown()
  if next(chat_mod().chats) == nil then
    return
  end
  pcall(require("acpchat.rpc").request, "shutdown", {})
end

return M
