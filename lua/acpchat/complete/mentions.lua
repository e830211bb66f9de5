-- Mentions beyond files: what `@` names that the editor knows. Each is one token in the prompt,
-- read when the prompt is sent and turned into context items that Node makes content blocks
-- of (src/session/prompt-builder.ts: an embedded resource when the agent takes embedded
-- context, else a link or text; held to the session's cwd again there):
--   @diagnostics         the editor window's file's diagnostics
--   @diagnostics:all     every open file's diagnostics (files of the session's folder)
--   @quickfix            the quickfix list (entries in the session's folder)
--   @buffers             the open files, unsaved text included
--   @selection           the last visual selection
--   @folder/             a folder of the session: its files as links
--   @session:<name>      a past chat of this project: its transcript (redacted, capped in Node)
--   @#<name>:<path>:<line>  a symbol a language server knows: its source range
-- A mention that reaches outside the session's cwd refuses the prompt with a note saying so;
-- the prompt stays in the prompt buffer.
local project_files = require("acpchat.complete.project_files")
local history = require("acpchat.transcript.history")
local follow = require("acpchat.editor.follow")
-- editor_tools and lsp_query are required where a mention first needs them, not for a circle:
-- completion loads with every chat, and they are large.

local api = vim.api
local uv = vim.uv or vim.loop
local M = {}

--- The keywords, in the order offered.
M.keywords = {
  {
    token = "diagnostics",
    detail = "this file's diagnostics",
    doc = "The diagnostics of the file in the editor window (language servers, linters).",
  },
  {
    token = "diagnostics:all",
    detail = "every open file's diagnostics",
    doc = "The diagnostics of every open file of the session's folder.",
  },
  { token = "quickfix", detail = "the quickfix list", doc = "The quickfix list's entries in the session's folder." },
  {
    token = "buffers",
    detail = "the open files",
    doc = "Every open file of the session's folder, unsaved text included.",
  },
  {
    token = "selection",
    detail = "the last visual selection",
    doc = "The text last selected in visual mode, with its file and lines (unsaved text included).",
  },
}

--- Most entries a list mention carries; most bytes of a transcript read.
M.max_entries = 500
M.max_transcript = 96 * 1024
--- How long a symbol's completion or resolution waits for the language servers.
M.symbol_wait_ms = 800

local function real(path)
  return uv.fs_realpath(path)
end

--- Whether `path` is inside the chat's cwd (symlinks resolved; a path that does not exist is
--- judged by its parent).
function M.inside(chat, path)
  local root = real(chat.cwd) or chat.cwd
  local r = real(path) or (real(vim.fs.dirname(path)) and (real(vim.fs.dirname(path)) .. "/" .. vim.fs.basename(path)))
  return r ~= nil and (r == root or r:sub(1, #root + 1) == root .. "/")
end

local function rel(chat, path)
  local root = chat.cwd:gsub("/$", "")
  if path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2)
  end
  return path
end

local function outside_error(chat, token, path)
  return string.format("@%s: %s is outside the session's working directory (%s): not sent", token, path, chat.cwd)
end

--- How `s` matches `prefix`: 1 starts with it, 2 contains it (case ignored for a lowercase
--- prefix), nil not at all.
local function rank(s, prefix)
  if prefix == "" or vim.startswith(s, prefix) then
    return 1
  end
  local lp = prefix == prefix:lower()
  if (lp and s:lower() or s):find(prefix, 1, true) then
    return 2
  end
end
M.rank = rank

-- Past sessions -------------------------------------------------------------------------------

--- A session's title as one token: spaces and `@` become `-`, stops at its end go.
function M.slug(title)
  local s = vim.trim(title or ""):gsub("[%s@]+", "-"):gsub("[%c]", ""):gsub("[.,;:!?)]+$", "")
  return vim.fn.strcharpart(s, 0, 48)
end

local function history_file(sid)
  return history.dir() .. "/" .. sid:gsub("[^%w%-_.]", "_") .. ".md"
end

-- The index as last read, and the file's mtime then: completion asks at every key.
local index_cache = { mtime = -1, all = {} }

local function read_index()
  -- The index chats.lua names (required from there would make a circle through completion).
  local path = vim.fn.stdpath("state") .. "/acpchat/sessions.json"
  local st = uv.fs_stat(path)
  local mtime = st and (st.mtime.sec * 1e9 + st.mtime.nsec) or 0
  if mtime == index_cache.mtime then
    return index_cache.all
  end
  local f = io.open(path, "r")
  local ok, all = false, nil
  if f then
    ok, all = pcall(vim.json.decode, f:read("*a"))
    f:close()
  end
  index_cache = { mtime = mtime, all = ok and type(all) == "table" and all or {} }
  return index_cache.all
end

--- The sessions of the chat's project that have a local transcript: { slug, title, agent,
--- session_id, updated }; newest first. Read from the index Node keeps.
function M.sessions(chat)
  local all = vim.list_slice(read_index())
  table.sort(all, function(a, b)
    return tostring(a.updatedAt or "") > tostring(b.updatedAt or "")
  end)
  local out, seen = {}, {}
  local mine = chat.status and chat.status.session_id
  for _, s in ipairs(all) do
    if
      type(s) == "table"
      and s.cwd == chat.cwd
      and type(s.sessionId) == "string"
      and s.sessionId ~= mine
      and vim.fn.filereadable(history_file(s.sessionId)) == 1
    then
      local slug = M.slug(s.title ~= nil and s.title ~= "" and s.title or s.sessionId:sub(1, 12))
      if slug == "" or seen[slug] then
        slug = s.sessionId:sub(1, 12)
      end
      seen[slug] = true
      out[#out + 1] =
        { slug = slug, title = s.title, agent = s.agent, session_id = s.sessionId, updated = s.updatedAt, cwd = s.cwd }
    end
  end
  return out
end

--- The last `max` bytes of a file, and whether it was cut.
local function read_tail(path, max)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local size = f:seek("end")
  f:seek("set", math.max(0, size - max))
  local text = f:read("*a")
  f:close()
  return text, size > max
end

local function session_item(chat, name)
  for _, s in ipairs(M.sessions(chat)) do
    if s.slug == name or s.session_id == name then
      local text, cut = read_tail(history_file(s.session_id), M.max_transcript)
      if not text then
        break
      end
      if cut then
        text = "[… the transcript's start was left out]\n" .. text:gsub("^[^\n]*\n", "")
      end
      return {
        type = "text",
        mention = "@session:" .. name,
        uri = "acpchat://session/" .. s.session_id,
        title = string.format(
          "The transcript of an earlier chat of this project (%s, %s%s), to continue from",
          s.agent or "agent",
          s.title and ("“" .. s.title .. "”, ") or "",
          s.updated or "?"
        ),
        text = text,
      }
    end
  end
  return nil,
    string.format(
      "@session:%s: no past chat of this project (%s) with that name and a local transcript",
      name,
      chat.cwd
    )
end

-- Editor lists --------------------------------------------------------------------------------

local function gather(name)
  return require("acpchat.editor.editor_tools").gather[name]
end

local function diag_lines(chat, items, whole)
  local lines, outside = {}, 0
  for _, d in ipairs(items) do
    if M.inside(chat, d.path) then
      local extra = (d.source and (" [" .. d.source .. (d.code and (" " .. d.code) or "") .. "]")) or ""
      lines[#lines + 1] =
        string.format("%s:%d:%d: %s: %s%s", rel(chat, d.path), d.line, d.column, d.severity, d.message, extra)
    else
      outside = outside + 1
    end
  end
  if #lines == 0 then
    lines[1] = whole and "(no diagnostics in the open files)" or "(no diagnostics)"
  end
  if outside > 0 then
    lines[#lines + 1] = string.format("(%d outside the session's folder left out)", outside)
  end
  return table.concat(vim.list_slice(lines, 1, M.max_entries), "\n")
end

local function diagnostics_item(chat, all)
  local token = all and "diagnostics:all" or "diagnostics"
  if all then
    return {
      type = "text",
      mention = "@" .. token,
      uri = "acpchat://diagnostics",
      title = "Diagnostics of the open files",
      text = diag_lines(chat, gather("diagnostics")({}).items, true),
    }
  end
  local w = follow.editor_window(chat)
  local b = w and api.nvim_win_get_buf(w)
  local path = b and api.nvim_buf_get_name(b)
  if not path or path == "" then
    return nil, "@diagnostics: no file in the editor window (@diagnostics:all takes every open file's)"
  end
  if not M.inside(chat, path) then
    return nil, outside_error(chat, token, path)
  end
  local items = gather("diagnostics")({ path = path }).items
  return {
    type = "text",
    mention = "@" .. token,
    uri = "acpchat://diagnostics/" .. rel(chat, path),
    path = path,
    title = "Diagnostics of " .. rel(chat, path),
    text = diag_lines(chat, items),
  }
end

local function quickfix_item(chat)
  local qf = gather("quickfix")()
  local lines, outside = {}, 0
  for _, it in ipairs(qf.items) do
    if it.path and not M.inside(chat, it.path) then
      outside = outside + 1
    elseif it.valid or it.path then
      lines[#lines + 1] = string.format(
        "%s:%d:%d:%s %s",
        it.path and rel(chat, it.path) or "",
        it.line,
        it.column,
        it.type and (" " .. it.type .. ":") or "",
        it.text
      )
    else
      lines[#lines + 1] = it.text
    end
  end
  if #lines == 0 then
    lines[1] = "(the quickfix list is empty)"
  end
  if outside > 0 then
    lines[#lines + 1] = string.format("(%d outside the session's folder left out)", outside)
  end
  return {
    type = "text",
    mention = "@quickfix",
    uri = "acpchat://quickfix",
    title = "The quickfix list" .. (qf.title and (" (" .. qf.title .. ")") or ""),
    text = table.concat(vim.list_slice(lines, 1, M.max_entries), "\n"),
  }
end

local function buffers_items(chat)
  local out, outside = {}, 0
  for _, b in ipairs(gather("open_buffers")().items) do
    if M.inside(chat, b.path) then
      out[#out + 1] = { type = "file", path = b.path, mention = "@buffers" }
    else
      outside = outside + 1
    end
  end
  if #out == 0 then
    return nil,
      "@buffers: no open file in the session's folder"
        .. (outside > 0 and string.format(" (%d outside it)", outside) or "")
  end
  return out
end

local function selection_item(chat)
  local sel = gather("selection")().selection
  if not sel then
    return nil, "@selection: nothing was selected in a file yet (select text in visual mode first)"
  end
  if not M.inside(chat, sel.path) then
    return nil, outside_error(chat, "selection", sel.path)
  end
  local b = vim.fn.bufnr(sel.path)
  return {
    type = "range",
    mention = "@selection",
    path = sel.path,
    start = sel.start_line,
    ["end"] = sel.end_line,
    text = sel.text,
    filetype = b > 0 and vim.bo[b].filetype or nil,
  }
end

local function folder_items(chat, token)
  local dir = token:gsub("/+$", "")
  local abs = dir:sub(1, 1) == "/" and dir or (chat.cwd .. "/" .. dir)
  local st = uv.fs_stat(abs)
  if not st or st.type ~= "directory" then
    return nil
  end
  if not M.inside(chat, abs) then
    return nil, outside_error(chat, token, abs)
  end
  local r = rel(chat, real(abs) or abs)
  local out = {}
  for _, f in ipairs((project_files.get(chat.cwd))) do
    if #out >= M.max_entries then
      break
    end
    if r == "" or r == chat.cwd or vim.startswith(f, r .. "/") then
      out[#out + 1] = { type = "link", path = chat.cwd .. "/" .. f, mention = "@" .. token }
    end
  end
  if #out == 0 then
    -- Not listed (yet): its own files, a level down at most.
    for name, type in vim.fs.dir(abs, { depth = 2 }) do
      if #out >= M.max_entries then
        break
      end
      if type == "file" then
        out[#out + 1] = { type = "link", path = abs .. "/" .. name, mention = "@" .. token }
      end
    end
  end
  if #out == 0 then
    return nil, "@" .. token .. ": the folder holds no file"
  end
  return out
end

-- Symbols -------------------------------------------------------------------------------------

--- Symbols offered lately, by token: { path, line, end_line }.
local symbol_cache = {}

--- A symbol as a token: `#name:path:line` (path relative to the cwd), or nil when its name
--- cannot be one word.
function M.symbol_token(chat, s)
  if type(s.name) ~= "string" or s.name == "" or s.name:find("[%s@]") then
    return nil
  end
  return "#" .. s.name .. ":" .. rel(chat, s.path) .. ":" .. s.line
end

--- Workspace symbols matching `query` from the language servers attached in the editor, in the
--- session's folder; `cb(items)` with { token, name, kind, container, path, line } (within
--- M.symbol_wait_ms; none when no server answers).
function M.symbols(chat, query, cb)
  if query == "" or query:find("[/:%s]") then
    return cb({})
  end
  require("acpchat.editor.lsp_query").workspace_symbols({ query = query, timeout_ms = M.symbol_wait_ms }, function(res)
    local out = {}
    for _, s in ipairs(res and res.items or {}) do
      if M.inside(chat, s.path) then
        local token = M.symbol_token(chat, s)
        if token then
          symbol_cache[token] = { path = s.path, line = s.line, end_line = s.end_line }
          out[#out + 1] = vim.tbl_extend("force", s, { token = token })
        end
      end
      if #out >= 50 then
        break
      end
    end
    cb(out)
  end)
end

--- A file's lines `first`..`last` (1-based), the buffer's when it is loaded (unsaved text).
local function file_lines(path, first, last)
  local b = vim.fn.bufnr(path)
  if b > 0 and api.nvim_buf_is_loaded(b) then
    return api.nvim_buf_get_lines(b, first - 1, last, false), vim.bo[b].filetype
  end
  local out, n = {}, 0
  local ok = pcall(function()
    for l in io.lines(path) do
      n = n + 1
      if n > last then
        break
      end
      if n >= first then
        out[#out + 1] = l
      end
    end
  end)
  return ok and out or {}, vim.filetype.match({ filename = path })
end

local function symbol_range(chat, token, cb)
  local body = token:sub(2)
  local line = tonumber(body:match(":(%d+)$"))
  body = body:gsub(":%d+$", "")
  -- name:path, the name may hold a colon (Foo::bar): the split that names a file.
  local name, path
  local from = 1
  while true do
    local at = body:find(":", from, true)
    if not at then
      break
    end
    local p = body:sub(at + 1)
    local abs = p:sub(1, 1) == "/" and p or (chat.cwd .. "/" .. p)
    if uv.fs_stat(abs) then
      name, path = body:sub(1, at - 1), abs
      break
    end
    from = at + 1
  end
  if not line or not path then
    return cb(nil, "@" .. token .. ": no such symbol (the file or line is gone)")
  end
  if not M.inside(chat, path) then
    return cb(nil, outside_error(chat, token, path))
  end
  local function done(last)
    last = math.max(line, math.min(last or line, line + 400))
    local lines, ft = file_lines(path, line, last)
    cb({
      type = "range",
      mention = "@" .. token,
      path = path,
      start = line,
      ["end"] = line + math.max(#lines, 1) - 1,
      text = table.concat(lines, "\n"),
      filetype = ft,
    })
  end
  local known = symbol_cache[token]
  if known and known.end_line then
    return done(known.end_line)
  end
  M.symbols(chat, name, function(items)
    for _, s in ipairs(items) do
      if s.token == token and s.end_line then
        return done(s.end_line)
      end
    end
    -- Not known to a server now: the lines down to the next one indented as little.
    local lines = file_lines(path, line, line + 200)
    local indent = #((lines[1] or ""):match("^%s*"))
    local last = line
    for i = 2, #lines do
      local l = lines[i]
      if l:match("%S") then
        last = line + i - 1
        if #l:match("^%s*") <= indent then
          break
        end
      end
    end
    done(last)
  end)
end

-- Reading a prompt ----------------------------------------------------------------------------

--- The mentions of `text` that are no plain file, each once: the tokens after `@` (a word's
--- first character), stops at their end dropped.
function M.tokens(text)
  local out, seen = {}, {}
  for word in (" " .. text):gmatch("%s@([^%s@]+)") do
    local w = word:gsub("[.,;!?)]+$", "")
    if not seen[w] then
      seen[w] = true
      out[#out + 1] = w
    end
  end
  return out
end

--- Resolve one token: `cb(items|nil, err|nil)`; items nil and no error: not a mention of ours
--- (a file, or plain text).
local function resolve_one(chat, token, cb)
  if token == "diagnostics" or token == "diagnostics:all" then
    return cb(diagnostics_item(chat, token == "diagnostics:all"))
  elseif token == "quickfix" then
    return cb(quickfix_item(chat))
  elseif token == "buffers" then
    return cb(buffers_items(chat))
  elseif token == "selection" then
    return cb(selection_item(chat))
  elseif token:match("^session:.") then
    return cb(session_item(chat, token:sub(9)))
  elseif token:match("^#.+:%d+$") then
    return symbol_range(chat, token, cb)
  elseif token:match("/$") then
    return cb(folder_items(chat, token))
  end
  cb(nil)
end

--- The context items of `text`'s mentions; `cb(items, err)`: err (one line per refused mention)
--- when any reaches outside the session's folder or names nothing: nothing is sent then.
function M.resolve(chat, text, cb)
  local tokens = M.tokens(text)
  local items, errs = {}, {}
  local i = 0
  local function next_token()
    i = i + 1
    local token = tokens[i]
    if not token then
      return cb(items, #errs > 0 and table.concat(errs, "\n") or nil)
    end
    local ok, err = pcall(resolve_one, chat, token, function(got, why)
      if why then
        errs[#errs + 1] = why
      elseif got then
        vim.list_extend(items, got.type and { got } or got)
      end
      vim.schedule(next_token)
    end)
    if not ok then
      errs[#errs + 1] = "@" .. token .. ": " .. tostring(err)
      vim.schedule(next_token)
    end
  end
  next_token()
end

-- Completion ----------------------------------------------------------------------------------

--- Candidates for `@prefix` that are no files, found now (keywords, folders of `paths`, past
--- sessions): { token, detail, doc, kind = "keyword" | "folder" | "session", best = rank }.
function M.candidates(chat, prefix, paths)
  if prefix == "" then
    return {}
  end
  local out = {}
  for _, k in ipairs(M.keywords) do
    local r = rank(k.token, prefix)
    if r then
      out[#out + 1] = { token = k.token, detail = k.detail, doc = k.doc, kind = "keyword", best = r }
    end
  end
  local seen = {}
  for _, p in ipairs(paths or {}) do
    local dir = p:match("^(.*)/[^/]*$")
    while dir and not seen[dir] do
      seen[dir] = true
      if rank(dir .. "/", prefix) and project_files.folder_mentionable(dir) then
        out[#out + 1] = {
          token = dir .. "/",
          detail = "folder: its files as links",
          doc = "The files under `" .. dir .. "/` (as links the agent can read).",
          kind = "folder",
          best = rank(dir .. "/", prefix),
        }
      end
      dir = dir:match("^(.*)/[^/]*$")
    end
  end
  if rank("session:", prefix) or prefix:match("^session:") or #prefix >= 3 then
    local n = 0
    for _, s in ipairs(M.sessions(chat)) do
      local token = "session:" .. s.slug
      local r = rank(token, prefix)
      if r and n < 20 then
        n = n + 1
        out[#out + 1] = {
          token = token,
          detail = string.format("past chat · %s · %s", s.agent or "?", (s.updated or ""):sub(1, 10)),
          doc = string.format(
            "**%s**\n\nA past chat of this project (%s): its transcript goes with the prompt, so the agent can continue from it.",
            s.title or s.session_id,
            s.agent or "?"
          ),
          kind = "session",
          best = r,
        }
      end
    end
  end
  return out
end

return M
