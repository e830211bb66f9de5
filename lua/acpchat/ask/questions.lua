-- The questions Node asked that wait for the user's answer (see ask.lua for who asks them).
-- An answer goes back once with the `reply` call; a question Node withdrew is forgotten, and a
-- late answer to it is dropped.
local bridge = require("acpchat.host.bridge")
local waiting = require("acpchat.chat.waiting")
local registry = require("acpchat.chat.registry")

local M = {}

---@type table<string, { chat: integer, kind: acpchat.wire.QuestionKind, at: table }>
M.open = {}

-- The registry finds a review tab's chat through its question; it requires nothing above it.
---@diagnostic disable-next-line: duplicate-set-field
registry.question_chat = function(key)
  local q = M.open[key]
  return q and q.chat
end

--- Where the user was when the question came: they are put back there after answering.
local function here()
  local win = vim.api.nvim_get_current_win()
  return { win = win, cursor = vim.api.nvim_win_get_cursor(win), insert = vim.api.nvim_get_mode().mode:sub(1, 1) == "i" }
end

local function go_back(at, review)
  vim.schedule(function()
    if not vim.api.nvim_win_is_valid(at.win) then
      return
    end
    -- After a review, unless another one opened meanwhile (its tab stays in front).
    if review then
      for _, q in pairs(M.open) do
        if q.kind == "review" then
          return
        end
      end
    end
    vim.api.nvim_set_current_win(at.win)
    pcall(vim.api.nvim_win_set_cursor, at.win, at.cursor)
    -- Back from a review into a chat's prompt is back to typing.
    if at.insert or (review and vim.bo[vim.api.nvim_win_get_buf(at.win)].filetype == "acpchat-prompt") then
      -- Insert where the cursor was: at the end of the line needs `startinsert!`.
      local line = vim.api.nvim_get_current_line()
      vim.cmd(at.cursor[2] >= #line and "startinsert!" or "startinsert")
    end
  end)
end

---@param key string
---@param chat_id integer
---@param kind acpchat.wire.QuestionKind
function M.track(key, chat_id, kind)
  M.open[key] = { chat = chat_id, kind = kind, at = here() }
end

--- Whether `key` still waits for its answer.
---@param key string
---@return boolean
function M.is_open(key)
  return M.open[key] ~= nil
end

--- Answer a question (value nil: dismissed). Only the first answer counts.
---@param key string
---@param value acpchat.answer.Any?
function M.reply(key, value)
  local q = M.open[key]
  if q == nil then
    return
  end
  M.open[key] = nil
  waiting.drop(key)
  if value ~= nil then
    waiting.answered()
  end
  bridge.call("reply", { key = key, value = value })
  -- Back to where the user was (a review's tab closes by itself first).
  go_back(q.at, q.kind == "review")
end

---@param key string
function M.forget(key)
  M.open[key] = nil
end

return M
