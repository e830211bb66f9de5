-- acp-chat.nvim: chat with coding agents (Agent Client Protocol) inside Neovim.
-- Public Lua API; the :AcpChat* commands call these. None of them waits on the agent.
local config = require("acpchat.config")
local util = require("acpchat.util")

local M = {}

--- Optional: override defaults. Every problem is reported in one message; the valid part of
--- `opts` is kept and the rest falls back to the defaults.
function M.setup(opts)
  local ok, err = config.set(opts)
  if not ok then
    vim.notify(err, vim.log.levels.ERROR, { title = "acpchat" })
  end
  require("acpchat.highlights").setup()
  return ok
end

local function chats()
  return require("acpchat.chats")
end
local function registry()
  return require("acpchat.registry")
end

--- :AcpChat[!] [agent]: focus this tab's chat, or start one (always a new one with bang).
function M.open(agent, new)
  local layout = require("acpchat.layout")
  local cur = registry().current()
  if cur and not new and (agent == nil or agent == cur.agent) then
    layout.show(cur)
    -- A chat whose agent died comes back: started again, its session continued if possible.
    if registry().state(cur) == "crashed" then
      chats().restart(cur)
    end
    return cur
  end
  local chat = chats().create(agent)
  if chat then
    layout.show(chat)
    vim.cmd("startinsert")
  end
  return chat
end

--- :AcpChatSend {text}: send (or queue) a prompt; starts a chat when there is none.
function M.send(text)
  local c = registry().current() or M.open(nil, false)
  if c then
    chats().send(c, text)
  end
end

function M.cancel()
  local c = registry().need()
  if c then
    chats().cancel(c)
  end
end

--- :AcpChatFork: a new chat that starts from a fork of this chat's session (unstable
--- session/fork; needs `unstable = true` and an agent that advertises sessionCapabilities.fork).
function M.fork()
  require("acpchat.fork").fork()
end

function M.close()
  local c = registry().need()
  if c then
    chats().close(c)
  end
end

--- Hide the chat, or show it again in the layout it had.
function M.toggle()
  local layout = require("acpchat.layout")
  local c = registry().current()
  if not c then
    return M.open(nil, false)
  end
  if layout.visible(c) then
    return layout.hide(c)
  end
  layout.show(c)
end

--- :[range]AcpChatAdd [file]: add context to the next prompt.
function M.add(opts)
  local c = registry().need()
  if not c then
    return
  end
  -- Images and audio (and the clipboard's image: `+`, or `*` for the primary selection) are
  -- checked by Node: inside the session's folder, under media.max_bytes (lua/acpchat/media.lua).
  if opts.file == "+" or opts.file == "*" then
    return require("acpchat.media").add_clipboard(c, opts.file == "*")
  end
  local item
  if opts.file and opts.file ~= "" and require("acpchat.media").is_media(opts.file) then
    return require("acpchat.media").add_file(c, vim.fn.fnamemodify(opts.file, ":p"))
  elseif opts.file and opts.file ~= "" then
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
  local prompt = require("acpchat.prompt")
  table.insert(c.context, item)
  prompt.show_context(c)
  util.notify("acpchat: added " .. prompt.context_label(item) .. " to the next prompt")
end

--- For statuslines: this tab's chat (nil without one). `state` is one of starting, signing_in,
--- ready, running, cancelling, crashed, closed; `reason` says why it crashed.
function M.status()
  local c = registry().current()
  if not c or not c.status then
    return nil
  end
  local s = c.status
  return {
    id = c.id,
    agent = s.agent or c.agent,
    title = s.title,
    state = s.state,
    reason = s.reason,
    queued = s.queued and #s.queued or 0,
    mode = s.mode,
    model = s.model,
    usage = s.usage,
    -- The last turn's tokens (unstable PromptResponse.usage), when the agent sends them.
    turn_usage = s.turn_usage,
  }
end

--- Stop every agent (VimLeavePre). The host also stops them when Neovim goes away.
function M.shutdown()
  if next(registry().chats) == nil then
    return
  end
  require("acpchat.bridge").call("shutdown", {})
end

return M
