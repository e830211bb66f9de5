-- acp-chat.nvim: commands. Everything else is required lazily from their callbacks; the Node
-- host starts in the background on first use. No command waits on the agent or the host, and a
-- failure is one notification line (details in :AcpChatLog), never a stack trace.
if vim.g.loaded_acpchat then
  return
end
vim.g.loaded_acpchat = 1

if vim.fn.has("nvim-0.10") == 0 then
  vim.notify("acp-chat.nvim needs Neovim 0.10 or newer", vim.log.levels.ERROR)
  return
end

require("acpchat.highlights").setup()
-- Knows Neovim's own vim.notify before notification plugins replace it (see notify.lua).
require("acpchat.notify")

-- The file buffer of the user's last visual selection, for the agent's `selection` tool
-- (lua/acpchat/editor/editor_tools.lua): the user selects before any chat exists.
vim.api.nvim_create_autocmd("ModeChanged", {
  group = vim.api.nvim_create_augroup("acpchat_selection", { clear = true }),
  pattern = "*:[vV\22]*",
  callback = function(ev)
    if vim.bo[ev.buf].buftype == "" and vim.api.nvim_buf_get_name(ev.buf) ~= "" then
      vim.g.acpchat_last_visual_buf = ev.buf
    end
  end,
})

local function cmd(name, desc, fn, opts)
  opts = opts or {}
  opts.desc = desc
  vim.api.nvim_create_user_command(name, function(o)
    require("acpchat.chat.guard").guard(":" .. name, fn)(o)
  end, opts)
end
local function acp()
  return require("acpchat")
end
local function agents()
  return require("acpchat.config").agent_names()
end
--- The current chat, or nil after saying there is none.
local function need()
  return require("acpchat.chat.registry").need()
end

cmd("AcpChat", "Open (or focus) the chat; ! starts a new one; from hands this chat's conversation over", function(o)
  local agent, from, err = require("acpchat.app.handoff").parse(o.fargs)
  if err then
    return vim.notify("acpchat: " .. err, vim.log.levels.ERROR)
  elseif from then
    return require("acpchat.app.handoff").open(agent, from)
  end
  acp().open(agent, o.bang)
end, {
  nargs = "*",
  bang = true,
  complete = function(lead, line)
    return require("acpchat.app.handoff").complete(lead, line)
  end,
})
cmd("AcpChatList", "Pick one of every live chat (agent, title, state, tab) and show it here", function()
  acp().list()
end)
cmd("AcpChatSend", "Send a prompt to this tab's chat", function(o)
  acp().send(o.args)
end, { nargs = "+" })
cmd("AcpChatCancel", "Cancel the running turn (queued prompts come back)", function()
  acp().cancel()
end)
cmd("AcpChatClose", "Close the chat and stop its agent", function()
  acp().close()
end)
cmd("AcpChatToggle", "Show or hide the chat", function()
  acp().toggle()
end)
cmd("AcpChatAdd", "Add the range, buffer or a file to the next prompt", function(o)
  acp().add({ file = o.args, range = o.range, line1 = o.line1, line2 = o.line2 })
end, { nargs = "?", range = true, complete = "file" })
cmd("AcpChatContext", "Remove context waiting for the next prompt", function()
  acp().context()
end)
cmd("AcpChatTerminal", "Show the full output of the chat's last terminal", function()
  local c = need()
  if c then
    require("acpchat.transcript.terminal_view").show(c, nil)
  end
end)
cmd("AcpChatLogout", "Sign out of this chat's agent (when it supports it); the next prompt signs in again", function()
  local c = need()
  if c then
    require("acpchat.host.bridge").call("logout", { chat = c.id }, function(err)
      if err then
        require("acpchat.util").notify("acpchat: " .. err, vim.log.levels.WARN)
      end
    end)
  end
end)
cmd("AcpChatInstall", "Install an agent from the ACP registry (! updates; an installed one can be removed)", function(o)
  require("acpchat.install").pick(o.args ~= "" and o.args or nil, o.bang)
end, { nargs = "?", bang = true })
cmd(
  "AcpChatChanges",
  "Put every hunk of a turn (default: the last; all: since the chat started) in the quickfix list",
  function(o)
    require("acpchat.checkpoints.changes").quickfix(o.args)
  end,
  {
    nargs = "?",
    complete = function()
      return { "all" }
    end,
  }
)
cmd(
  "AcpChatRewind",
  "Put every file changed since a turn began back as it was (! does not ask; undo: take the last rewind back)",
  function(o)
    require("acpchat.checkpoints.changes").rewind(o.args, o.bang)
  end,
  {
    nargs = "?",
    bang = true,
    complete = function()
      return { "undo" }
    end,
  }
)
cmd(
  "AcpChatReview",
  "Review every file changed since turn N (default: since you approved) in one tab; send: the comments; approve: start the next review here",
  function(o)
    require("acpchat.review.loop").command(o.args)
  end,
  {
    nargs = "?",
    complete = function()
      return { "send", "approve" }
    end,
  }
)
cmd("AcpChatComment", "Comment on these lines for the agent (:AcpChatReview send sends them; ! removes)", function(o)
  require("acpchat.review.comments").command(o)
end, { nargs = "*", range = true, bang = true })
cmd("AcpChatSessions", "Open a past session (! deletes one)", function(o)
  require("acpchat.app.sessions").pick(o.args ~= "" and o.args or nil, o.bang)
end, { nargs = "?", bang = true, complete = agents })
cmd("AcpChatMode", "Pick or set the session mode", function(o)
  require("acpchat.app.settings").mode(o.args)
end, {
  nargs = "?",
  complete = function(...)
    return require("acpchat.app.settings").complete("mode")(...)
  end,
})
cmd("AcpChatModel", "Pick or set the model", function(o)
  require("acpchat.app.settings").model(o.args)
end, {
  nargs = "?",
  complete = function(...)
    return require("acpchat.app.settings").complete("model")(...)
  end,
})
cmd("AcpChatOption", "Pick or set a session option", function(o)
  require("acpchat.app.settings").option(o.fargs[1], o.fargs[2])
end, {
  nargs = "*",
  complete = function(...)
    return require("acpchat.app.settings").complete("option")(...)
  end,
})
cmd("AcpChatFork", "Start a new chat branched from this one (unstable session/fork)", function()
  acp().fork()
end)
cmd("AcpChatSave", "Save the transcript as markdown (! replaces an existing file)", function(o)
  local c = need()
  if c then
    require("acpchat.transcript.save").save(c, o.args, o.bang)
  end
end, { nargs = "?", complete = "file", bang = true })
cmd("AcpChatLog", "Show the JSON-RPC trace of this chat (optionally filtered by method)", function(o)
  require("acpchat.app.log").open(o.args)
end, { nargs = "?" })
cmd("AcpChatPermissions", "List the permission rules remembered for this chat, and remove them", function()
  local c = need()
  if c then
    require("acpchat.ask.permission").manage(c)
  end
end)
cmd("AcpChatAnswer", "Open the oldest question that waits for your answer (this chat's first)", function()
  local c = require("acpchat.chat.registry").current()
  if not require("acpchat.chat.waiting").answer(c and c.id) then
    require("acpchat.util").notify("acpchat: no question waits for an answer")
  end
end)

local group = vim.api.nvim_create_augroup("AcpChat", { clear = true })
vim.api.nvim_create_autocmd("ColorScheme", {
  group = group,
  callback = function()
    require("acpchat.highlights").setup()
  end,
})
vim.api.nvim_create_autocmd("VimResized", {
  group = group,
  callback = function()
    if package.loaded["acpchat.chat.registry"] then
      for _, c in pairs(require("acpchat.chat.registry").chats) do
        require("acpchat.chat.layout").resize(c)
      end
    end
  end,
})
-- One :q closes a tab where only chat windows would be left (lua/acpchat/chat/layout.lua).
vim.api.nvim_create_autocmd("QuitPre", {
  group = group,
  callback = function()
    if package.loaded["acpchat.chat.registry"] then
      require("acpchat.chat.layout").quit_pre()
    end
  end,
})
-- A chat whose tab closed is hidden, not lost: its agent runs and :AcpChatList shows it.
vim.api.nvim_create_autocmd("TabClosed", {
  group = group,
  callback = function()
    if package.loaded["acpchat.chat.registry"] then
      for _, c in pairs(require("acpchat.chat.registry").chats) do
        if c.tab and not vim.api.nvim_tabpage_is_valid(c.tab) then
          c.tab = nil
        end
      end
    end
  end,
})
vim.api.nvim_create_autocmd("VimLeavePre", {
  group = group,
  callback = function()
    if package.loaded["acpchat.chat.registry"] then
      require("acpchat").shutdown()
    end
  end,
})
