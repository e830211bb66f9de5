-- Symbol mentions: `@` plus a name completes the workspace symbols of the language servers
-- attached in the editor; `@#name:path:line` is sent as the symbol's source range.
local paths = require("acpchat.complete.mention_paths")
-- lsp_query is required where a symbol is first asked for: completion loads with every chat,
-- and it is large.

local api = vim.api
local uv = vim.uv or vim.loop
local M = {}

--- How long a symbol's completion or resolution waits for the language servers.
M.wait_ms = 800

--- Symbols offered lately, by token: { path, line, end_line }.
local symbol_cache = {}

--- A symbol as a token: `#name:path:line` (path relative to the cwd), or nil when its name
--- cannot be one word.
function M.token(chat, s)
  if type(s.name) ~= "string" or s.name == "" or s.name:find("[%s@]") then
    return nil
  end
  return "#" .. s.name .. ":" .. paths.rel(chat, s.path) .. ":" .. s.line
end

--- Workspace symbols matching `query` from the language servers attached in the editor, in the
--- session's folder; `cb(items)` with { token, name, kind, container, path, line } (within
--- M.wait_ms; none when no server answers).
function M.search(chat, query, cb)
  if query == "" or query:find("[/:%s]") then
    return cb({})
  end
  require("acpchat.editor.lsp_query").workspace_symbols({ query = query, timeout_ms = M.wait_ms }, function(res)
    local out = {}
    for _, s in ipairs(res and res.items or {}) do
      if paths.inside(chat, s.path) then
        local token = M.token(chat, s)
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

--- `@#name:path:line`: the symbol's source range (unsaved text included) as a range item;
--- `cb(item)` or `cb(nil, why)`.
function M.range(chat, token, cb)
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
  if not paths.inside(chat, path) then
    return cb(nil, paths.outside_error(chat, token, path))
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
  M.search(chat, name, function(items)
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

return M
