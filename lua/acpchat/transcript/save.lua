-- :AcpChatSave: the transcript as markdown, under Neovim's data folder unless told where.
-- Like :w, an existing file is never replaced without `!`, and a file open with unsaved edits
-- never at all (those edits would be lost, or written back over the transcript).
local config = require("acpchat.config")
local util = require("acpchat.util")
local blocks = require("acpchat.transcript.blocks")
local long_line = require("acpchat.transcript.long_line")

local M = {}

---@return string
function M.default_dir()
  return config.save_dir()
end

--- A buffer holding `path` with unsaved edits, if any.
local function modified_buffer(path)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if
      vim.api.nvim_buf_is_loaded(b)
      and vim.bo[b].modified
      and vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":p") == path
    then
      return b
    end
  end
end

--- Why the transcript may not be written to `path` (nil: it may).
---@param path string
---@param force boolean
---@return string?
function M.refusal(path, force)
  if vim.fn.isdirectory(path) == 1 then
    return path .. " is a directory"
  end
  if modified_buffer(path) then
    return path .. " is open with unsaved changes; not replaced"
  end
  -- lstat: a symbolic link counts as a file, even one that points nowhere (a write would create its target).
  if not force and vim.uv.fs_lstat(path) then
    return path .. " exists (add ! to replace it)"
  end
end

--- What the saved file starts with: the title, then agent, session, folder and date.
---@param chat acpchat.Chat
---@return string[]
function M.header(chat)
  local s = chat.status or {}
  local title = s.title and s.title ~= "" and vim.trim((s.title:gsub("%s+", " "))) or ("Chat with " .. chat.agent)
  local lines = { "# " .. title, "", "- agent: " .. chat.agent }
  if s.session_id then
    lines[#lines + 1] = "- session: " .. s.session_id
  end
  lines[#lines + 1] = "- folder: " .. (s.cwd or chat.cwd)
  lines[#lines + 1] = "- saved: " .. os.date("%Y-%m-%d %H:%M")
  lines[#lines + 1] = ""
  return lines
end

--- The transcript's lines as markdown: a tool call's lines under its header (input, output,
--- terminal, subagent calls) go in a ``` fence, so they read as output, not as markdown.
---@param chat acpchat.Chat
---@return string[]
function M.body(chat)
  local buf = chat.buf
  local all = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local rs = blocks.state(chat)
  local fenced = {}
  for _, id in ipairs(rs.order or {}) do
    local b = rs.blocks[id]
    if b and (b.type == "tool" or b.type == "changes") then
      local ok, first, last = pcall(blocks.range, buf, rs, b)
      if ok and last > first then
        fenced[first] = last -- 0-based rows: the header at `first`, the body up to `last`
      end
    end
  end
  -- A line long_line broke for its length is saved whole.
  local continued = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, long_line.ns, 0, -1, {})) do
    continued[m[2]] = true
  end
  local out = {}
  local i = 0
  while i < #all do
    if continued[i - 1] and #out > 0 then
      out[#out] = out[#out] .. all[i + 1]
    else
      out[#out + 1] = all[i + 1]
    end
    local last = fenced[i]
    if last then
      out[#out + 1] = "```text"
      for k = i + 1, last do
        out[#out + 1] = all[k + 1]
      end
      out[#out + 1] = "```"
      i = last + 1
    else
      i = i + 1
    end
  end
  return out
end

--- Write the transcript to `path` (default: a new file in the save folder); `force` (`!`)
--- replaces an existing file. Returns the path written, or nil.
---@param chat acpchat.Chat
---@param path string
---@param force boolean
function M.save(chat, path, force)
  if not path or path == "" then
    local title = (chat.status and chat.status.title) or chat.agent
    local name = string.format("acpchat-%s-%s.md", title:gsub("[^%w%-_]+", "-"):sub(1, 40), os.date("%Y%m%d-%H%M%S"))
    vim.fn.mkdir(M.default_dir(), "p")
    path = M.default_dir() .. "/" .. name
  end
  path = vim.fn.fnamemodify(path, ":p")
  local why = M.refusal(path, force)
  if why then
    util.notify("acpchat: not saved: " .. why, vim.log.levels.ERROR)
    return nil
  end
  local lines = vim.list_extend(M.header(chat), M.body(chat))
  local ok, err = pcall(vim.fn.writefile, lines, path)
  if ok then
    -- A buffer showing the file (without edits, or refusal() would have said so) shows the new text.
    local b = vim.fn.bufnr(path)
    if b > 0 and vim.api.nvim_buf_is_loaded(b) then
      pcall(vim.api.nvim_command, "checktime " .. b)
    end
  end
  util.notify(
    ok and ("acpchat: saved the transcript to " .. path) or ("acpchat: could not save: " .. tostring(err)),
    ok and vim.log.levels.INFO or vim.log.levels.ERROR
  )
  return ok and path or nil
end

return M
