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
local boundary = require("acpchat.complete.mention_paths")
local sessions = require("acpchat.complete.mention_sessions")
local symbols = require("acpchat.complete.mention_symbols")
local follow = require("acpchat.editor.follow")
-- editor_tools is required where a mention first needs it, not for a circle: completion loads
-- with every chat, and it is large.

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

--- Most entries a list mention carries.
M.max_entries = 500

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

-- Editor lists --------------------------------------------------------------------------------

local function gather(name)
  return require("acpchat.editor.editor_tools").gather[name]
end

local function diag_lines(chat, items, whole)
  local lines, outside = {}, 0
  for _, d in ipairs(items) do
    if boundary.inside(chat, d.path) then
      local extra = (d.source and (" [" .. d.source .. (d.code and (" " .. d.code) or "") .. "]")) or ""
      lines[#lines + 1] =
        string.format("%s:%d:%d: %s: %s%s", boundary.rel(chat, d.path), d.line, d.column, d.severity, d.message, extra)
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
  if not boundary.inside(chat, path) then
    return nil, boundary.outside_error(chat, token, path)
  end
  local items = gather("diagnostics")({ path = path }).items
  return {
    type = "text",
    mention = "@" .. token,
    uri = "acpchat://diagnostics/" .. boundary.rel(chat, path),
    path = path,
    title = "Diagnostics of " .. boundary.rel(chat, path),
    text = diag_lines(chat, items),
  }
end

local function quickfix_item(chat)
  local qf = gather("quickfix")()
  local lines, outside = {}, 0
  for _, it in ipairs(qf.items) do
    if it.path and not boundary.inside(chat, it.path) then
      outside = outside + 1
    elseif it.valid or it.path then
      lines[#lines + 1] = string.format(
        "%s:%d:%d:%s %s",
        it.path and boundary.rel(chat, it.path) or "",
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
    if boundary.inside(chat, b.path) then
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
  if not boundary.inside(chat, sel.path) then
    return nil, boundary.outside_error(chat, "selection", sel.path)
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
  if not boundary.inside(chat, abs) then
    return nil, boundary.outside_error(chat, token, abs)
  end
  local r = boundary.rel(chat, boundary.real(abs) or abs)
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
    return cb(sessions.item(chat, token:sub(9)))
  elseif token:match("^#.+:%d+$") then
    return symbols.range(chat, token, cb)
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
    for _, s in ipairs(sessions.sessions(chat)) do
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

-- The kinds' own entry points, for completion (init.lua, prompt_lsp.lua).
M.symbols, M.symbol_token, M.slug = symbols.search, symbols.token, sessions.slug

return M
