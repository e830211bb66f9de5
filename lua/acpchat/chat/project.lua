-- A project's own settings: `.acpchat.lua` in the chat's working directory (|acpchat-project|).
-- It can start programs (MCP servers), so it is read through vim.secure.read: Neovim asks once
-- whether to trust the file, as it does for 'exrc', and asks again when the file changes. It
-- runs with no globals (it returns a table of data), for at most M.MAX_INSTRUCTIONS, and is
-- checked against config.lua's project_schema; a mistake is reported and that part is left out.
local config = require("acpchat.config")
local util = require("acpchat.util")

local M = {}

M.FILE = ".acpchat.lua"

-- Reported once per file and content, not at every chat.
local reported = {}

local function report(path, msg, level)
  local key = path .. "\0" .. msg
  if not reported[key] then
    reported[key] = true
    util.notify("acpchat: " .. msg, level or vim.log.levels.WARN)
  end
end

-- VM instructions a project file may take (a data file takes a few hundred; this many run in a
-- fraction of a second). It runs while :AcpChat opens the chat: one that never ends must not
-- take the editor with it.
M.MAX_INSTRUCTIONS = 10000000
-- A project file larger than this is not read (settings take a few hundred bytes).
M.MAX_BYTES = 1024 * 1024

--- pcall(chunk), stopped after M.MAX_INSTRUCTIONS. Count hooks do not run in JIT-compiled
--- code, so the chunk (and the functions it defines) runs interpreted.
local function run_limited(chunk)
  if jit then
    jit.off(chunk, true)
  end
  local hook, mask, count = debug.gethook()
  debug.sethook(function()
    error(
      string.format("stopped: it ran for more than %d instructions (a loop that never ends?)", M.MAX_INSTRUCTIONS),
      0
    )
  end, "", M.MAX_INSTRUCTIONS)
  local ran, value = pcall(chunk)
  if hook then
    debug.sethook(hook, mask, count)
  else
    debug.sethook()
  end
  return ran, value
end

--- The settings of the project at `cwd` ({} when it has none, or they are not trusted).
---@param cwd string
function M.load(cwd)
  local path = vim.fs.joinpath(cwd, M.FILE)
  local st = vim.uv.fs_stat(path)
  if not st then
    return {}
  end
  -- Read only a small regular file: vim.secure.read reads the whole file to hash it, and an agent
  -- can make a FIFO in the cwd (reading it would stop the editor) or a huge file.
  if st.type ~= "file" then
    report(
      path,
      M.FILE .. " is not a regular file (" .. st.type .. "), so it is ignored: " .. path,
      vim.log.levels.ERROR
    )
    return {}
  end
  if st.size > M.MAX_BYTES then
    report(
      path,
      string.format("%s is larger than %d bytes, so it is ignored: %s", M.FILE, M.MAX_BYTES, path),
      vim.log.levels.ERROR
    )
    return {}
  end
  local ok, contents = pcall(vim.secure.read, path)
  if not ok or type(contents) ~= "string" then
    report(path, path .. " is not trusted, so it is ignored (:trust it, then start the chat again)")
    return {}
  end
  local chunk, err = load(contents, "=" .. M.FILE, "t", {})
  if not chunk then
    report(path, M.FILE .. ": " .. tostring(err), vim.log.levels.ERROR)
    return {}
  end
  local ran, value = run_limited(chunk)
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
