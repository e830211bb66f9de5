-- Prompt completion: `/` completes the agent's slash commands, `@` files under the session's cwd.
-- Works with the built-in completion (omnifunc, <C-x><C-o>, triggered as you type / and @).
local M = {}

local function chat_of(buf)
  for _, c in pairs(require("acpchat.registry").chats) do
    if c.prompt_buf == buf then
      return c
    end
  end
end

--- Files under `cwd` matching `prefix` (relative paths), capped.
function M.files(cwd, prefix, max)
  max = max or 200
  local out = {}
  local pattern = (prefix or "") .. "*"
  local ok, matches = pcall(vim.fn.globpath, cwd, "**/" .. pattern, false, true)
  if not ok then
    return out
  end
  for _, p in ipairs(matches) do
    if vim.fn.isdirectory(p) == 0 then
      local rel = p:sub(#cwd + 2)
      if not rel:match("^%.git/") and not rel:match("/node_modules/") and not rel:match("^node_modules/") then
        out[#out + 1] = rel
        if #out >= max then
          break
        end
      end
    end
  end
  return out
end

--- Candidates for the word before the cursor ("/name" or "@path").
function M.candidates(chat, word)
  local items = {}
  if word:sub(1, 1) == "/" then
    local prefix = word:sub(2)
    for _, c in ipairs(chat.status and chat.status.commands or {}) do
      if vim.startswith(c.name, prefix) then
        local hint = c.hint and (" " .. c.hint) or ""
        items[#items + 1] = { word = "/" .. c.name, abbr = "/" .. c.name .. hint, menu = c.description, kind = "cmd" }
      end
    end
  elseif word:sub(1, 1) == "@" then
    for _, f in ipairs(M.files(chat.cwd, word:sub(2))) do
      items[#items + 1] = { word = "@" .. f, menu = "file", kind = "file" }
    end
  end
  return items
end

function M.omnifunc(findstart, base)
  local line = vim.api.nvim_get_current_line()
  local col = vim.api.nvim_win_get_cursor(0)[2]
  if findstart == 1 then
    local s = line:sub(1, col):find("[/@][^%s]*$")
    return s and (s - 1) or -3
  end
  local chat = chat_of(vim.api.nvim_get_current_buf())
  if not chat then
    return {}
  end
  return M.candidates(chat, base)
end

--- Open the completion menu as soon as `/` (at the start of the prompt) or `@` is typed.
function M.attach(chat)
  vim.api.nvim_create_autocmd("InsertCharPre", {
    buffer = chat.prompt_buf,
    group = vim.api.nvim_create_augroup("AcpChatComplete" .. chat.prompt_buf, { clear = true }),
    callback = function()
      local ch = vim.v.char
      if ch ~= "@" and ch ~= "/" then
        return
      end
      if ch == "/" then
        local before = vim.api.nvim_get_current_line():sub(1, vim.api.nvim_win_get_cursor(0)[2])
        if before:match("%S") then
          return
        end
      end
      vim.schedule(function()
        if vim.fn.mode() == "i" and vim.fn.pumvisible() == 0 then
          vim.api.nvim_feedkeys(vim.keycode("<C-x><C-o>"), "n", false)
        end
      end)
    end,
  })
end

return M
