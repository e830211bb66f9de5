-- The editor tools that language servers answer (definition, references, hover, document and
-- workspace symbols), for editor_tools.lua. Each asks every attached server that supports the
-- method, through callbacks, and answers by its deadline with what arrived: the editor never
-- waits on a language server. Works with the client API of Neovim 0.10 and of 0.11+.
local bridge = require("acpchat.host.bridge")
local workspace = require("acpchat.editor.workspace")

local M = {}
local api = vim.api

local new_api = vim.fn.has("nvim-0.11") == 1
-- Nothing attached this long after the file was loaded: there is no server for it.
local ATTACH_MS = 1500

local function request(client, method, params, handler, bufnr)
  if new_api then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function cancel(client, id)
  pcall(function()
    if new_api then
      client:cancel_request(id)
    else
      client.cancel_request(id)
    end
  end)
end

local function supports(client, method, bufnr)
  if new_api then
    return client:supports_method(method, bufnr)
  end
  return client.supports_method(method, { bufnr = bufnr })
end

--- The buffer of a path (loaded or not), if the editor has one.
local function find_buf(path)
  return workspace.find_buf(path, true)
end

-- Buffers the tools loaded (hidden, unlisted, no swap file), oldest first: at most KEEP stay
-- loaded, so that asking again is quick, and no agent can fill the editor with buffers.
local KEEP = 20
local ours = {}

--- The user shows one of them in a window: it is theirs now, with the swap file their options
--- ask for ('swapfile' was off only while it was hidden).
local function adopt(b)
  for i, x in ipairs(ours) do
    if x == b then
      table.remove(ours, i)
      break
    end
  end
  if api.nvim_buf_is_loaded(b) then
    pcall(function()
      vim.bo[b].swapfile = vim.go.swapfile
    end)
  end
end

local function forget_oldest()
  local i = 1
  while #ours > KEEP and i <= #ours do
    local b = ours[i]
    if not api.nvim_buf_is_valid(b) then
      table.remove(ours, i)
    elseif vim.fn.bufwinid(b) == -1 and not vim.bo[b].modified and not vim.bo[b].buflisted then
      table.remove(ours, i)
      pcall(api.nvim_buf_delete, b, { force = false })
    else
      i = i + 1
    end
  end
end

--- The buffer of `path`, loaded so that language servers attach (as :edit would, but without
--- showing it, listing it or asking about a swap file). Node checked that it is a regular file
--- of a sane size inside the session's folders; the type is checked again here (a FIFO would
--- stop the editor in its read).
---@param chat acpchat.Chat
local function load(path, chat)
  local b = find_buf(path)
  if b and api.nvim_buf_is_loaded(b) then
    return b
  end
  local st = vim.uv.fs_stat(path)
  if not st or st.type ~= "file" then
    error(path .. (st and " is not a regular file" or ": no such file"), 0)
  end
  local new = not b
  b = b or vim.fn.bufadd(path)
  pcall(function()
    vim.bo[b].swapfile = false
  end)
  -- An error in one of the user's FileType or BufRead autocmds is theirs, not the tool's: as
  -- with :edit, the file is read and their other autocmds (those that start language servers)
  -- still run. Under pcall the first error would abort them, hence :silent! (and v:errmsg).
  vim.v.errmsg = ""
  vim.cmd("silent! call bufload(" .. b .. ")")
  local err = vim.v.errmsg
  if not api.nvim_buf_is_loaded(b) then
    error("could not open " .. path .. (err ~= "" and ": " .. err:match("^[^\n]*") or ""), 0)
  end
  if err ~= "" then
    bridge.call(
      "log",
      { chat = chat, message = "editor tools: an autocmd failed while " .. path .. " was loaded", details = err }
    )
  end
  api.nvim_create_autocmd("BufWinEnter", {
    buffer = b,
    once = true,
    callback = function()
      adopt(b)
    end,
  })
  if new then
    -- Only buffers the tools made are ever wiped; one the user had (unloaded) stays theirs.
    ours[#ours + 1] = b
    forget_oldest()
  end
  return b
end

local function loaded_line(path, line)
  local b = find_buf(path)
  if b and api.nvim_buf_is_loaded(b) then
    return api.nvim_buf_get_lines(b, line - 1, line, false)[1]
  end
end

--- `fn` for a callback of `method`'s (an attach wait, the servers' answers): an error in it (an
--- answer that does not read as the protocol says, a buffer gone meanwhile) fails the tool with a
--- reason; it never raises in a deferred callback or an LSP handler, in front of the user.
local function guarded(method, done, fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      done(nil, string.format("%s could not be answered in the editor: %s", method, tostring(err):match("^[^\n]*")))
    end
  end
end

--- `fn(clients)` once a server that answers `method` is attached to `b`, or `fn(nil, why)`.
local function with_clients(b, method, deadline, started, fn)
  if not api.nvim_buf_is_loaded(b) then
    return fn(nil, "the file's buffer was closed in the editor before a language server could answer")
  end
  local attached = vim.lsp.get_clients({ bufnr = b })
  local able = vim.tbl_filter(function(c)
    return supports(c, method, b)
  end, attached)
  if #able > 0 then
    return fn(able)
  end
  local now = vim.uv.now()
  if now >= deadline or (#attached == 0 and now - started >= ATTACH_MS) then
    local name = vim.fn.fnamemodify(api.nvim_buf_get_name(b), ":t")
    if #attached == 0 then
      return fn(
        nil,
        string.format("no language server is attached to %s (filetype %q) in the editor", name, vim.bo[b].filetype)
      )
    end
    local names = table.concat(
      vim.tbl_map(function(c)
        return c.name
      end, attached),
      ", "
    )
    return fn(
      nil,
      string.format(
        "the language server%s attached to %s (%s) do%s not answer %s",
        #attached > 1 and "s" or "",
        name,
        names,
        #attached > 1 and "" or "es",
        method
      )
    )
  end
  vim.defer_fn(function()
    with_clients(b, method, deadline, started, fn)
  end, 50)
end

--- Ask each client; `done(results, errors, note)` once all answered or at the deadline.
--- results: { client, result }[]; errors: string[].
local function ask_all(clients, method, params_for, b, deadline, done)
  local results, errors, waiting, ids, finished = {}, {}, #clients, {}, false
  local function finish(note)
    if finished then
      return
    end
    finished = true
    done(results, errors, note)
  end
  for _, c in ipairs(clients) do
    local ok, id = request(c, method, params_for(c), function(err, result)
      ids[c.id] = nil
      if err then
        errors[#errors + 1] = string.format("%s: %s", c.name, err.message or tostring(err))
      elseif result ~= nil then
        results[#results + 1] = { client = c, result = result }
      end
      waiting = waiting - 1
      if waiting == 0 then
        finish()
      end
    end, b)
    if ok then
      ids[c.id] = { client = c, id = id }
    else
      waiting = waiting - 1
      errors[#errors + 1] = c.name .. ": could not send the request (the server is stopping)"
    end
  end
  if waiting == 0 then
    return finish()
  end
  vim.defer_fn(function()
    if finished then
      return
    end
    for _, r in pairs(ids) do
      cancel(r.client, r.id)
    end
    finish(string.format("%d language server(s) did not answer in time", waiting))
  end, math.max(0, deadline - vim.uv.now()))
end

--- Ask the servers attached to `b` that answer `method` (each with `params_for(client)`), by
--- `deadline`: `answered(results, errors, note)` unless none answered, then `done(nil, why)`.
local function ask_buffer(b, method, deadline, done, params_for, answered)
  with_clients(
    b,
    method,
    deadline,
    vim.uv.now(),
    guarded(method, done, function(clients, why)
      if not clients then
        return done(nil, why)
      end
      ask_all(
        clients,
        method,
        params_for,
        b,
        deadline,
        guarded(method, done, function(results, errors, note)
          if #results == 0 and #errors > 0 then
            return done(nil, table.concat(errors, "; "))
          end
          if #results == 0 and note then
            return done(nil, "no answer: " .. note)
          end
          answered(results, errors, note)
        end)
      )
    end)
  )
end

--- A 0-based byte column as an LSP character offset in `encoding`.
local function lsp_character(text, byte_col, encoding)
  local prefix = text:sub(1, byte_col)
  if encoding == "utf-8" then
    return #prefix
  end
  if encoding == "utf-32" then
    return vim.fn.strchars(prefix)
  end
  local units = 0
  for _, cp in ipairs(vim.fn.str2list(prefix)) do
    units = units + (cp > 0xFFFF and 2 or 1)
  end
  return units
end

--- The byte column (0-based) the tool's `symbol` or `column` points at on `text`.
local function byte_col(args, text)
  if args.symbol then
    local at = text:find(args.symbol, 1, true)
    if not at then
      error(string.format("%q is not on line %d (it reads: %s)", args.symbol, args.line, vim.trim(text):sub(1, 120)), 0)
    end
    return at - 1
  end
  if args.column then
    local b = vim.fn.byteidx(text, args.column - 1)
    return b >= 0 and b or #text
  end
  return (text:find("%S") or 1) - 1
end

--- Run `method` at the tool's position; `shape(results, b)` makes the answer.
local function at_position(method, args, done, extra, shape)
  local deadline = vim.uv.now() + (args.timeout_ms or 5000)
  local ok, b = pcall(load, args.path, args.chat_id)
  if not ok then
    return done(nil, tostring(b))
  end
  local count = api.nvim_buf_line_count(b)
  if args.line > count then
    return done(nil, string.format("line %d is past the end of the file (%d lines)", args.line, count))
  end
  local text = api.nvim_buf_get_lines(b, args.line - 1, args.line, false)[1] or ""
  local found, col = pcall(byte_col, args, text)
  if not found then
    return done(nil, tostring(col))
  end
  ask_buffer(b, method, deadline, done, function(c)
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(b) },
      position = { line = args.line - 1, character = lsp_character(text, col, c.offset_encoding or "utf-16") },
    }
    return vim.tbl_extend("force", params, extra or {})
  end, function(results, errors, note)
    local value = shape(results)
    value.note = note or (#errors > 0 and table.concat(errors, "; ") or nil)
    done(value)
  end)
end

--- Location | Location[] | LocationLink[] as { path, line, character, encoding, text } items.
local function locations(results)
  local items = {}
  for _, r in ipairs(results) do
    local list = r.result
    if list.uri or list.targetUri then
      list = { list }
    end
    for _, l in ipairs(list) do
      local uri = l.uri or l.targetUri
      local range = l.range or l.targetSelectionRange or l.targetRange
      if uri and range then
        local path = vim.uri_to_fname(uri)
        items[#items + 1] = {
          path = path,
          line = range.start.line + 1,
          character = range.start.character,
          encoding = r.client.offset_encoding or "utf-16",
          text = loaded_line(path, range.start.line + 1),
        }
      end
    end
  end
  return { items = items }
end

function M.definition(args, done)
  at_position("textDocument/definition", args, done, nil, locations)
end

function M.references(args, done)
  at_position(
    "textDocument/references",
    args,
    done,
    { context = { includeDeclaration = args.include_declaration ~= false } },
    locations
  )
end

local function hover_text(contents)
  if type(contents) == "string" then
    return contents
  end
  if contents.value then
    return contents.kind == nil
        and contents.language
        and ("```" .. contents.language .. "\n" .. contents.value .. "\n```")
      or contents.value
  end
  local parts = {}
  for _, c in ipairs(contents) do
    parts[#parts + 1] = hover_text(c)
  end
  return table.concat(parts, "\n\n")
end

function M.hover(args, done)
  at_position("textDocument/hover", args, done, nil, function(results)
    local parts = {}
    for _, r in ipairs(results) do
      if r.result.contents then
        parts[#parts + 1] = hover_text(r.result.contents)
      end
    end
    return { text = table.concat(parts, "\n\n") }
  end)
end

local function kind_name(kind)
  return vim.lsp.protocol.SymbolKind[kind] or "Symbol"
end

function M.document_symbols(args, done)
  local deadline = vim.uv.now() + (args.timeout_ms or 5000)
  local ok, b = pcall(load, args.path, args.chat_id)
  if not ok then
    return done(nil, tostring(b))
  end
  local method = "textDocument/documentSymbol"
  ask_buffer(b, method, deadline, done, function()
    return { textDocument = { uri = vim.uri_from_bufnr(b) } }
  end, function(results, _, note)
    local items = {}
    local function walk(list, depth)
      for _, s in ipairs(list) do
        local range = s.range or (s.location and s.location.range)
        if range then
          items[#items + 1] = {
            name = s.name,
            kind = kind_name(s.kind),
            detail = s.detail,
            line = range.start.line + 1,
            end_line = range["end"].line + 1,
            depth = depth,
          }
        end
        if s.children then
          walk(s.children, depth + 1)
        end
      end
    end
    for _, r in ipairs(results) do
      walk(r.result, 0)
    end
    done({ items = items, note = note })
  end)
end

function M.workspace_symbols(args, done)
  local deadline = vim.uv.now() + (args.timeout_ms or 5000)
  local method = "workspace/symbol"
  local clients = vim.tbl_filter(function(c)
    return supports(c, method)
  end, vim.lsp.get_clients())
  if #clients == 0 then
    return done(
      nil,
      "no language server running in the editor answers workspace/symbol (they start when a file of their language is opened)"
    )
  end
  ask_all(
    clients,
    method,
    function()
      return { query = args.query or "" }
    end,
    nil,
    deadline,
    guarded(method, done, function(results, errors, note)
      if #results == 0 and (#errors > 0 or note) then
        return done(nil, #errors > 0 and table.concat(errors, "; ") or ("no answer: " .. note))
      end
      local items = {}
      for _, r in ipairs(results) do
        for _, s in ipairs(r.result) do
          local loc = s.location or {}
          if loc.uri then
            local path = vim.uri_to_fname(loc.uri)
            local line = loc.range and loc.range.start.line + 1 or 1
            items[#items + 1] = {
              name = s.name,
              kind = kind_name(s.kind),
              container = s.containerName ~= "" and s.containerName or nil,
              path = path,
              line = line,
              end_line = loc.range and loc.range["end"].line + 1 or nil,
              character = loc.range and loc.range.start.character or 0,
              encoding = r.client.offset_encoding or "utf-16",
              text = loaded_line(path, line),
            }
          end
        end
      end
      done({ items = items, note = note })
    end)
  )
end

return M
