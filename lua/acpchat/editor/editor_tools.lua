-- What the editor knows, for the agent's editor tools: Node's `editor_query` event
-- names a tool, this module gathers plain data and answers with the `editor_answer` call. Node
-- has checked the path against the session's folders already, and formats the answer
-- (src/editor-tools/format.ts). Nothing here waits: language servers answer through callbacks
-- (lsp_query.lua) and every query has a deadline.
local bridge = require("acpchat.host.bridge")
local lsp_query = require("acpchat.editor.lsp_query")
local workspace = require("acpchat.editor.workspace")

local M = {}
local api = vim.api

local SEVERITY = { "error", "warning", "info", "hint" }

--- The file buffer the user last selected text in (plugin/acpchat.lua keeps `vim.g` up to date
--- from the moment Neovim starts, before any chat exists).
local function last_visual_buf()
  local b = vim.g.acpchat_last_visual_buf
  if type(b) == "number" and api.nvim_buf_is_valid(b) and api.nvim_buf_is_loaded(b) then
    return b
  end
end

--- The buffer of a file buffer's path (loaded or not), if the editor has one.
local function buf_of(path)
  return workspace.find_buf(path, true)
end

--- A file buffer the user works in (not a chat, help or terminal buffer).
local function is_file_buf(b)
  return api.nvim_buf_is_valid(b) and vim.bo[b].buftype == "" and api.nvim_buf_get_name(b) ~= ""
end

local function line_text(b, lnum)
  return api.nvim_buf_get_lines(b, lnum, lnum + 1, false)[1]
end

--- A 0-based byte column of line `lnum` (0-based) as a 1-based column in characters.
local function char_col(b, lnum, col)
  local text = line_text(b, lnum)
  if not text then
    return col + 1
  end
  return vim.fn.strchars(text:sub(1, col)) + 1
end

local function diagnostics(args)
  local bufs
  if args.path then
    local b = buf_of(args.path)
    if not b or not api.nvim_buf_is_loaded(b) then
      return {
        items = {},
        note = "The file is not open in the editor; language servers report diagnostics only for files the editor has open (open it, or ask without a path for all open files).",
      }
    end
    bufs = { b }
  end
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(bufs and bufs[1] or nil)) do
    if api.nvim_buf_is_valid(d.bufnr) and is_file_buf(d.bufnr) then
      items[#items + 1] = {
        path = api.nvim_buf_get_name(d.bufnr),
        line = d.lnum + 1,
        column = char_col(d.bufnr, d.lnum, d.col),
        severity = SEVERITY[d.severity] or "hint",
        -- Linters put what they like in these: only text (and a number for the code) is shown.
        message = type(d.message) == "string" and d.message or tostring(d.message),
        source = type(d.source) == "string" and d.source or nil,
        code = (type(d.code) == "string" or type(d.code) == "number") and d.code or nil,
      }
    end
  end
  return { items = items }
end

local function open_buffers()
  local items = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if vim.bo[b].buflisted and is_file_buf(b) then
      items[#items + 1] = {
        path = api.nvim_buf_get_name(b),
        modified = vim.bo[b].modified,
        visible = vim.fn.bufwinid(b) ~= -1,
        filetype = vim.bo[b].filetype ~= "" and vim.bo[b].filetype or nil,
        lines = api.nvim_buf_line_count(b),
      }
    end
  end
  return { items = items }
end

--- The file buffers with unsaved edits (what open_buffers says `modified`), sent with a prompt.
function M.unsaved()
  local paths = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if vim.bo[b].modified and vim.bo[b].buflisted and is_file_buf(b) then
      paths[#paths + 1] = api.nvim_buf_get_name(b)
    end
  end
  return paths
end

local function region_text(b, mode, s, e)
  local ok, lines = pcall(api.nvim_buf_call, b, function()
    return vim.fn.getregion(s, e, { type = mode })
  end)
  if ok and type(lines) == "table" then
    return table.concat(lines, "\n")
  end
  return table.concat(api.nvim_buf_get_lines(b, s[2] - 1, e[2], false), "\n")
end

local function selection()
  local mode = vim.fn.mode()
  local b, s, e, current
  if (mode == "v" or mode == "V" or mode == "\22") and is_file_buf(api.nvim_get_current_buf()) then
    b, s, e, current = api.nvim_get_current_buf(), vim.fn.getpos("v"), vim.fn.getpos("."), true
  elseif last_visual_buf() then
    b = last_visual_buf()
    s, e = vim.fn.getpos("'<"), vim.fn.getpos("'>")
    -- getpos reads the current buffer's marks: read them in the selection's buffer.
    api.nvim_buf_call(b, function()
      s, e = vim.fn.getpos("'<"), vim.fn.getpos("'>")
      mode = vim.fn.visualmode()
    end)
    current = false
  end
  if not b or s[2] == 0 then
    return {}
  end
  if s[2] > e[2] or (s[2] == e[2] and s[3] > e[3]) then
    s, e = e, s
  end
  mode = (mode == "V" or mode == "\22") and mode or "v"
  local first, last = s[2], e[2]
  local scol = mode == "V" and 1 or char_col(b, first - 1, s[3] - 1)
  local last_line = line_text(b, last - 1) or ""
  local ecol = mode == "V" and math.max(1, vim.fn.strchars(last_line))
    or char_col(b, last - 1, math.min(e[3], #last_line) - 1)
  return {
    selection = {
      path = api.nvim_buf_get_name(b),
      mode = mode == "\22" and "block" or mode,
      start_line = first,
      start_column = scol,
      end_line = last,
      end_column = ecol,
      text = region_text(b, mode, s, e),
      modified = vim.bo[b].modified,
      current = current,
    },
  }
end

local function quickfix()
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  local items = {}
  for _, it in ipairs(qf.items or {}) do
    local path = it.bufnr > 0 and api.nvim_buf_is_valid(it.bufnr) and api.nvim_buf_get_name(it.bufnr) or nil
    items[#items + 1] = {
      path = path ~= "" and path or nil,
      line = it.lnum,
      column = math.max(1, it.col),
      type = it.type ~= "" and it.type or nil,
      text = it.text,
      valid = it.valid == 1,
    }
  end
  return { title = qf.title ~= "" and qf.title or nil, items = items }
end

--- The editor's lists as plain data, for `@` mentions too (mentions.lua).
M.gather = { diagnostics = diagnostics, open_buffers = open_buffers, selection = selection, quickfix = quickfix }

-- Each tool: fn(args, done), done(value) or done(nil, error).
local tools = {
  diagnostics = function(args, done)
    done(diagnostics(args))
  end,
  open_buffers = function(_, done)
    done(open_buffers())
  end,
  selection = function(_, done)
    done(selection())
  end,
  quickfix = function(_, done)
    done(quickfix())
  end,
  definition = lsp_query.definition,
  references = lsp_query.references,
  hover = lsp_query.hover,
  document_symbols = lsp_query.document_symbols,
  workspace_symbols = lsp_query.workspace_symbols,
}

--- Node's `editor_query` event.
---@param p acpchat.event.EditorQuery
function M.query(p)
  local answered = false
  local function done(value, err)
    if answered then
      return
    end
    answered = true
    local ok, json = true, nil
    if not err then
      ok, json = pcall(vim.json.encode, value or vim.empty_dict())
    end
    if err or not ok then
      -- Every query is answered: an answer that cannot be encoded says why instead of never coming.
      bridge.call(
        "editor_answer",
        { key = p.key, error = err or ("the editor's answer could not be encoded: " .. tostring(json)) }
      )
    else
      bridge.call("editor_answer", { key = p.key, value_json = json })
    end
  end
  local tool = tools[p.tool]
  if not tool then
    return done(nil, "this editor has no tool " .. tostring(p.tool))
  end
  local ok, args = pcall(vim.json.decode, p.args_json or "{}", { luanil = { object = true, array = true } })
  if not ok or type(args) ~= "table" then
    return done(nil, "the tool's arguments were not JSON")
  end
  args.chat_id = p.chat
  local ran, err = xpcall(tool, debug.traceback, args, done)
  if not ran then
    -- The agent hears why; the traceback goes to the chat's trace (:AcpChatLog), not to the user.
    bridge.call("log", { chat = p.chat, message = "editor tool " .. p.tool .. " failed", details = tostring(err) })
    done(nil, p.tool .. " failed in the editor: " .. tostring(err):match("^[^\n]*"))
  end
end

return M
