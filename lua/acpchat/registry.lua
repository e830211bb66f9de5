-- The chats of this Neovim, as Lua knows them: their buffers, windows and the last status Node
-- sent. Protocol and session state live in Node.
local api = vim.api

local M = {}

---@type table<integer, table>
M.chats = {}
local next_id = 1

function M.new_id()
  local id = next_id
  next_id = next_id + 1
  return id
end

function M.get(id)
  return M.chats[id]
end

--- The chat of the current tab (the last one opened in it), or of the chat buffer in use.
function M.current()
  local b = api.nvim_get_current_buf()
  for _, c in pairs(M.chats) do
    if c.buf == b or c.prompt_buf == b then
      return c
    end
  end
  local tab = api.nvim_get_current_tabpage()
  local best
  for _, c in pairs(M.chats) do
    if c.tab == tab and (not best or c.id > best.id) then
      best = c
    end
  end
  return best
end

--- The current chat, or nil after telling the user there is none.
function M.need()
  local c = M.current()
  if not c then
    vim.schedule(function()
      vim.notify("acpchat: no chat in this tab (open one with :AcpChat)", vim.log.levels.WARN, { title = "acpchat" })
    end)
  end
  return c
end

--- The chat's one visible state (starting, signing_in, ready, running, cancelling, crashed, closed).
function M.state(chat)
  return chat.status and chat.status.state or "starting"
end

return M
