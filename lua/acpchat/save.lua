-- :AcpChatSave: the transcript as markdown, under Neovim's data folder unless told where.
local config = require("acpchat.config")
local util = require("acpchat.util")

local M = {}

function M.default_dir()
  return config.save_dir()
end

function M.save(chat, path)
  if not path or path == "" then
    local title = (chat.status and chat.status.title) or chat.agent
    local name = string.format("acpchat-%s-%s.md", title:gsub("[^%w%-_]+", "-"):sub(1, 40), os.date("%Y%m%d-%H%M%S"))
    vim.fn.mkdir(M.default_dir(), "p")
    path = M.default_dir() .. "/" .. name
  end
  path = vim.fn.fnamemodify(path, ":p")
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  local ok, err = pcall(vim.fn.writefile, lines, path)
  util.notify(ok and ("acpchat: saved the transcript to " .. path) or ("acpchat: could not save: " .. tostring(err)), ok and vim.log.levels.INFO or vim.log.levels.ERROR)
  return ok and path or nil
end

return M
