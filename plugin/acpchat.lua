-- acp-chat.nvim: commands, and registration of the Node remote plugin. Everything else is
-- required lazily from the command callbacks.
if vim.g.loaded_acpchat then
  return
end
vim.g.loaded_acpchat = 1

if vim.fn.has("nvim-0.10") == 0 then
  vim.notify("acp-chat.nvim needs Neovim 0.10 or newer", vim.log.levels.ERROR)
  return
end

require("acpchat.host").register()
require("acpchat.highlights").setup()

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts)
end
local function acp()
  return require("acpchat")
end
local function agents()
  return require("acpchat.config").agent_names()
end

cmd("AcpChat", function(o)
  acp().open(o.args ~= "" and o.args or nil, o.bang)
end, { nargs = "?", bang = true, complete = agents, desc = "Open (or focus) the chat; ! starts a new one" })
cmd("AcpChatSend", function(o)
  acp().send(o.args)
end, { nargs = "+", desc = "Send a prompt to this tab's chat" })
cmd("AcpChatCancel", function()
  acp().cancel()
end, { desc = "Cancel the running turn" })
cmd("AcpChatClose", function()
  acp().close()
end, { desc = "Close the chat and stop its agent" })
cmd("AcpChatToggle", function()
  acp().toggle()
end, { desc = "Show or hide the chat" })
cmd("AcpChatAdd", function(o)
  acp().add({ file = o.args, range = o.range, line1 = o.line1, line2 = o.line2 })
end, { nargs = "?", range = true, complete = "file", desc = "Add the range, buffer or a file to the next prompt" })
cmd("AcpChatTerminal", function()
  local c = require("acpchat.chat").need()
  if c then
    require("acpchat.chat").show_terminal(c, nil)
  end
end, { desc = "Show the full output of the chat's last terminal" })

cmd("AcpChatSessions", function(o)
  require("acpchat.sessions").pick(o.args ~= "" and o.args or nil, o.bang)
end, { nargs = "?", bang = true, complete = agents, desc = "Open a past session (! deletes one)" })
cmd("AcpChatMode", function(o)
  require("acpchat.sessions").mode(o.args)
end, { nargs = "?", complete = function(...)
  return require("acpchat.sessions").complete("mode")(...)
end, desc = "Pick or set the session mode" })
cmd("AcpChatModel", function(o)
  require("acpchat.sessions").model(o.args)
end, { nargs = "?", complete = function(...)
  return require("acpchat.sessions").complete("model")(...)
end, desc = "Pick or set the model" })
cmd("AcpChatOption", function(o)
  require("acpchat.sessions").option(o.fargs[1], o.fargs[2])
end, { nargs = "*", complete = function(...)
  return require("acpchat.sessions").complete("option")(...)
end, desc = "Pick or set a session option" })
cmd("AcpChatSave", function(o)
  local c = require("acpchat.chat").need()
  if c then
    require("acpchat.chat").save(c, o.args)
  end
end, { nargs = "?", complete = "file", desc = "Save the transcript as markdown" })
cmd("AcpChatLog", function(o)
  require("acpchat.log").open(o.args)
end, { nargs = "?", desc = "Show the JSON-RPC trace of this chat (optionally filtered by method)" })
cmd("AcpChatPermissions", function()
  local c = require("acpchat.chat").need()
  if c then
    require("acpchat.permission").manage(c)
  end
end, { desc = "List the permission rules remembered for this chat, and remove them" })

local group = vim.api.nvim_create_augroup("AcpChat", { clear = true })
vim.api.nvim_create_autocmd("ColorScheme", {
  group = group,
  callback = function()
    require("acpchat.highlights").setup()
  end,
})
vim.api.nvim_create_autocmd("VimLeavePre", {
  group = group,
  callback = function()
    if package.loaded["acpchat.chat"] then
      require("acpchat").shutdown()
    end
  end,
})
