-- Where a mention may reach: inside the session's working directory (symlinks resolved), and
-- how a refusal is worded. Shared by the mention kinds (mentions.lua, mention_symbols.lua).
local uv = vim.uv or vim.loop

local M = {}

--- The path with symlinks resolved, or nil when it does not exist.
function M.real(path)
  return uv.fs_realpath(path)
end

--- Whether `path` is inside the chat's cwd (symlinks resolved; a path that does not exist is
--- judged by its parent).
function M.inside(chat, path)
  local root = M.real(chat.cwd) or chat.cwd
  local r = M.real(path)
    or (M.real(vim.fs.dirname(path)) and (M.real(vim.fs.dirname(path)) .. "/" .. vim.fs.basename(path)))
  return r ~= nil and (r == root or r:sub(1, #root + 1) == root .. "/")
end

--- `path` relative to the chat's cwd when below it, else as it is.
function M.rel(chat, path)
  local root = chat.cwd:gsub("/$", "")
  if path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2)
  end
  return path
end

--- The note of a mention refused for reaching outside the session's folder.
function M.outside_error(chat, token, path)
  return string.format("@%s: %s is outside the session's working directory (%s): not sent", token, path, chat.cwd)
end

return M
