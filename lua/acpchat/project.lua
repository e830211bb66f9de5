-- A project's own settings: `.acpchat.lua` in the chat's working directory (|acpchat-project|).
-- It can start programs (MCP servers), so it is read through vim.secure.read: Neovim asks once
-- whether to trust the file, as it does for 'exrc', and asks again when the file changes. It
-- runs with no globals (it returns a table of data) and is checked against config.lua's
-- project_schema; a mistake is reported and that part is left out.
local config = require("acpchat.config")

local M = {}

M.FILE = ".acpchat.lua"

-- Reported once per file and content, not at every chat.
local reported = {}

local function report(path, msg, level)
  local key = path .. "\0" .. msg
  if not reported[key] then
    reported[key] = true
    require("acpchat.util").notify("acpchat: " .. msg, level or vim.log.levels.WARN)
  end
end

--- The settings of the project at `cwd` ({} when it has none, or they are not trusted).
function M.load(cwd)
  local path = vim.fs.joinpath(cwd, M.FILE)
  if not vim.uv.fs_stat(path) then
    return {}
  end
  local ok, contents = pcall(vim.secure.read, path)
  if not ok or not contents then
    report(path, path .. " is not trusted, so it is ignored (:trust it, then start the chat again)")
    return {}
  end
  local chunk, err = load(contents, "=" .. M.FILE, "t", {})
  if not chunk then
    report(path, M.FILE .. ": " .. tostring(err), vim.log.levels.ERROR)
    return {}
  end
  local ran, value = pcall(chunk)
  if not ran or type(value) ~= "table" then
    report(path, M.FILE .. ": " .. (ran and "must return a table" or tostring(value)), vim.log.levels.ERROR)
    return {}
  end
  local out, problems = config.resolve_project(value)
  if #problems > 0 then
    report(path, table.concat(problems, "; "), vim.log.levels.ERROR)
  end
  return out
end

return M
