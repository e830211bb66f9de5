-- The prompt buffer's completion as a language server that lives inside Neovim: `vim.lsp.start`
-- with a Lua function as `cmd`, so every completion engine that speaks LSP (nvim-cmp, blink.cmp,
-- mini.completion, Neovim's own vim.lsp.completion) offers `/` commands and `@` files without an
-- adapter. No process, no pipe: requests are answered on the editor's loop, each after the
-- editor had its turn (never inside the call that asked), and nothing in it waits (the file list
-- is project_files.lua's, matched by file_match.lua in slices).
--
-- One client per chat, named "acpchat" (as |vim.lsp.get_clients()|, :checkhealth vim.lsp and
-- :LspInfo show it), rooted at the chat's cwd, attached to that chat's prompt buffer only and
-- stopped when the buffer goes away. It announces completion and nothing else, so Neovim sets no
-- keys or options for it beyond what a completion-only server gets; the user's LspAttach
-- autocmds do run for it (`client.name == "acpchat"` tells it apart).
local prompt_items = require("acpchat.complete.prompt_items")
local project_files = require("acpchat.complete.project_files")
local file_match = require("acpchat.complete.file_match")
local bridge = require("acpchat.host.bridge")
local mentions = require("acpchat.complete.mentions")

local api = vim.api
local M = {}

M.name = "acpchat"

local Kind = { Function = 3, Module = 9, Keyword = 14, File = 17, Reference = 18, Folder = 19 }

--- Longest an `@` answer waits for the file list when nothing matches yet.
M.list_wait_ms = 1000
--- Longest a `/` answer waits for the agent's commands (the first chat of a session also starts
--- the Node host and the agent).
M.commands_wait_ms = 3000
--- Longest an `@` answer waits for the language servers' symbols.
M.symbol_wait_ms = 300

local version
--- The plugin's version (package.json), for serverInfo (:checkhealth vim.lsp shows it).
local function plugin_version()
  if not version then
    local root = bridge.root
    local f = io.open(root .. "/package.json", "r")
    local ok, pkg = pcall(vim.json.decode, f and f:read("*a") or "")
    if f then
      f:close()
    end
    version = ok and type(pkg) == "table" and pkg.version or "unknown"
  end
  return version
end
local MethodNotFound = -32601

--- Length in bytes of the UTF-8 character starting with byte `b`.
local function char_len(b)
  return b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
end

--- The byte column (0-based) of position `units` of `line` in `enc` (utf-8, utf-16, utf-32).
function M.byte_col(line, units, enc)
  if enc == "utf-8" then
    return math.min(units, #line)
  end
  local n, i = 0, 1
  while i <= #line and n < units do
    local len = char_len(line:byte(i))
    n = n + ((enc == "utf-16" and len == 4) and 2 or 1)
    i = i + len
  end
  return i - 1
end

--- The position (in `enc` units) of byte column `byte` (0-based) of `line`.
function M.unit_col(line, byte, enc)
  if enc == "utf-8" then
    return byte
  end
  local n, i = 0, 1
  while i <= byte do
    local len = char_len(line:byte(i))
    n = n + ((enc == "utf-16" and len == 4) and 2 or 1)
    i = i + len
  end
  return n
end

--- The completion items for `chat`'s prompt at `position` (LSP, in `enc` units); `reply(result)`.
---@param chat acpchat.Chat
function M.completion(chat, position, enc, reply)
  local buf = chat.prompt_buf
  local empty = { isIncomplete = false, items = {} }
  if not api.nvim_buf_is_valid(buf) then
    return reply(empty)
  end
  local row = position.line
  local line = api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
  local ctx = prompt_items.context(line:sub(1, M.byte_col(line, position.character, enc)), row)
  if not ctx then
    return reply(empty)
  end
  local range = {
    start = { line = row, character = M.unit_col(line, ctx.col, enc) },
    ["end"] = { line = position.line, character = position.character },
  }
  if ctx.kind == "command" then
    return M.commands(chat, ctx, range, reply, vim.uv.hrtime())
  end
  M.files(chat, ctx, range, reply, true, enc)
end

--- The `/` items for `ctx`. The agent tells its commands a moment after its session starts: an
--- answer asked before that waits for them (up to M.commands_wait_ms, asynchronously).
---@param chat acpchat.Chat
function M.commands(chat, ctx, range, reply, since)
  if #(chat.status and chat.status.commands or {}) == 0 and (vim.uv.hrtime() - since) / 1e6 < M.commands_wait_ms then
    return vim.defer_fn(function()
      M.commands(chat, ctx, range, reply, since)
    end, 50)
  end
  local items = {}
  for i, c in ipairs(prompt_items.commands(chat, ctx.prefix)) do
    local label = "/" .. c.name
    local doc = "**" .. label .. "**" .. (c.hint and (" `" .. c.hint .. "`") or "")
    items[i] = {
      label = label,
      labelDetails = c.hint and { detail = " " .. c.hint } or nil,
      kind = Kind.Function,
      detail = c.description,
      documentation = { kind = "markdown", value = doc .. (c.description and ("\n\n" .. c.description) or "") },
      filterText = label,
      sortText = string.format("%04d", i),
      textEdit = { range = range, newText = label },
    }
  end
  return reply({ isIncomplete = false, items = items })
end

--- What is typed now from the `@` of `ctx` on row `row` up to the cursor, when the prompt's
--- cursor is still in that word (the user typed on while the answer was made), else nil; and
--- the cursor's byte column.
local function typed_now(chat, ctx, row)
  local win = api.nvim_get_current_win()
  if api.nvim_win_get_buf(win) ~= chat.prompt_buf then
    return nil
  end
  local r, c = unpack(api.nvim_win_get_cursor(win))
  if r - 1 ~= row or c <= ctx.col then
    return nil
  end
  local word = (api.nvim_buf_get_lines(chat.prompt_buf, row, row + 1, false)[1] or ""):sub(ctx.col + 1, c)
  if word:match("^@[^%s@]*$") then
    return word, c
  end
end

--- The `@` items for `ctx`: files matched anywhere in their path (best first), the mentions
--- that are no files (mentions.lua) and the language servers' symbols. Every answer is
--- incomplete, its items filtered by what was typed (`filterText`): the server matches, so a
--- client asks again as more is typed (clients narrow by prefix, and `@perm` would lose
--- `src/permission.lua`). While the list is still being made and nothing matches yet, the
--- answer waits for it (up to M.list_wait_ms; the editor does not: the answer is asynchronous):
--- an engine shows nothing for an empty answer and may not ask again.
---@param chat acpchat.Chat
function M.files(chat, ctx, range, reply, may_wait, enc)
  local files, whole = project_files.get(chat.cwd)
  local symbols, matched
  local function finish()
    if not symbols or not matched then
      return
    end
    local paths, stats = matched[1], matched[2]
    -- Typed on meanwhile: answered for what is there now.
    local row = range.start.line
    local now, c = typed_now(chat, ctx, row)
    if now and now ~= "@" .. ctx.prefix then
      local line = api.nvim_buf_get_lines(chat.prompt_buf, row, row + 1, false)[1] or ""
      local r2 = { start = range.start, ["end"] = { line = row, character = M.unit_col(line, c, enc or "utf-16") } }
      return M.files(chat, { kind = ctx.kind, col = ctx.col, prefix = now:sub(2) }, r2, reply, false, enc)
    end
    local c0 = project_files.cpu_ms()
    local typed = "@" .. ctx.prefix
    local items = {}
    local function add(label, kind, detail, doc)
      items[#items + 1] = {
        label = label,
        kind = kind,
        detail = detail,
        documentation = { kind = "markdown", value = doc },
        filterText = typed,
        sortText = string.format("%04d", #items + 1),
        textEdit = { range = range, newText = label },
      }
    end
    local others = mentions.candidates(chat, ctx.prefix, paths)
    local kinds = { keyword = Kind.Keyword, folder = Kind.Folder, session = Kind.Reference }
    for _, m in ipairs(others) do
      if m.best == 1 then
        add("@" .. m.token, kinds[m.kind], m.detail, m.doc)
      end
    end
    for _, p in ipairs(paths) do
      local st = stats[p]
      -- Gone since it was listed, a folder (a git submodule), or a symlink out of the
      -- session's folder (the prompt would not send it): nothing to offer.
      if st and st.type ~= "directory" and not st.outside then
        local d = prompt_items.describe(p, st)
        add("@" .. p, Kind.File, d.detail, d.doc)
      end
    end
    for _, m in ipairs(others) do
      if m.best ~= 1 then
        add("@" .. m.token, kinds[m.kind], m.detail, m.doc)
      end
    end
    for _, sym in ipairs(symbols) do
      local where = sym.token:match(":(.*)$")
      add(
        "@" .. sym.token,
        Kind.Module,
        sym.kind .. " · " .. where,
        string.format(
          "**%s** (%s%s)\n\n`%s`\n\nIts source range goes with the prompt.",
          sym.name,
          sym.kind,
          sym.container and (" in " .. sym.container) or "",
          where
        )
      )
    end
    project_files.note_busy(c0)
    reply({ isIncomplete = true, items = items })
  end
  mentions.symbols(chat, ctx.prefix, function(list)
    if not symbols then
      symbols = list
      finish()
    end
  end)
  -- A slow language server does not hold the files back: its symbols come on a later answer.
  vim.defer_fn(function()
    if not symbols then
      symbols = {}
      finish()
    end
  end, M.symbol_wait_ms)
  file_match.match(files, ctx.prefix, prompt_items.max_items, function(paths)
    if #paths == 0 and not whole and may_wait then
      symbols = false
      return project_files.when_listed(chat.cwd, M.list_wait_ms, function()
        M.files(chat, ctx, range, reply, false, enc)
      end)
    end
    project_files.stat(chat.cwd, paths, function(stats)
      matched = { paths, stats }
      finish()
    end)
  end, { slice_ms = 4 })
end

--- The server: a vim.lsp.rpc.PublicClient for `chat`, made from the client's dispatchers.
---@param chat acpchat.Chat
function M.server(chat)
  return function(dispatchers)
    local closing = false
    local enc = "utf-16"
    local pending = {} -- request id -> true until answered or cancelled
    local last_id = 0
    local srv = {}

    local function exit()
      if not closing then
        closing = true
        vim.schedule(function()
          dispatchers.on_exit(0, 0)
        end)
      end
    end

    function srv.request(method, params, callback, notify_reply_callback)
      if closing then
        return false
      end
      last_id = last_id + 1
      local id = last_id
      pending[id] = true
      -- Answers always come after the editor had its turn, as from a real server.
      local function answer(err, result)
        vim.schedule(function()
          if not pending[id] then
            return
          end
          pending[id] = nil
          if notify_reply_callback then
            notify_reply_callback(id)
          end
          callback(err, result)
        end)
      end
      if method == "initialize" then
        local offered = vim.tbl_get(params or {}, "capabilities", "general", "positionEncodings")
        if offered and #offered > 0 and not vim.tbl_contains(offered, "utf-16") then
          enc = offered[1]
        end
        answer(nil, {
          capabilities = {
            positionEncoding = enc,
            -- The server reads the prompt buffer itself: no copies of its text are sent.
            textDocumentSync = { openClose = false, change = 0 },
            completionProvider = { triggerCharacters = { "/", "@" }, resolveProvider = false },
          },
          serverInfo = { name = M.name, version = plugin_version() },
        })
      elseif method == "shutdown" then
        answer(nil, vim.NIL)
      elseif method == "textDocument/completion" then
        local ok, err = pcall(M.completion, chat, params.position, enc, function(result)
          answer(nil, result)
        end)
        if not ok then
          answer({ code = -32603, message = "acpchat: " .. tostring(err) })
        end
      else
        answer({ code = MethodNotFound, message = "acpchat: " .. method .. " is not served (completion only)" })
      end
      return true, id
    end

    function srv.notify(method, params)
      if method == "exit" then
        exit()
      elseif method == "$/cancelRequest" and params and pending[params.id] then
        -- As Neovim's RPC client does with a server's cancel acknowledgement: no callback.
        pending[params.id] = nil
      end
      return not closing
    end

    function srv.is_closing()
      return closing
    end

    function srv.terminate()
      exit()
    end

    return srv
  end
end

-- Neovim's LSP client loads a score of modules on its first use (12 to 60 ms here, more on a
-- busy machine): loaded one per turn of the loop before the first server starts, so opening a
-- chat never holds the editor that long at once. Names a version lacks are skipped.
local warm_modules = {
  "vim.uri",
  "vim.fs",
  "vim.lsp.log",
  "vim.lsp.protocol",
  "vim.lsp.util",
  "vim.lsp.sync",
  "vim.lsp._changetracking",
  "vim.lsp.rpc",
  "vim.lsp._transport",
  "vim.lsp",
  "vim.lsp.client",
  "vim.lsp._capability",
  "vim.lsp.semantic_tokens",
  "vim.lsp.document_color",
  "vim.lsp._folding_range",
  "vim.lsp.inline_completion",
  "vim.lsp.completion",
}
local warm, warming = false, nil

--- Run `fn` once Neovim's LSP modules are loaded (at once when they are).
local function when_warm(fn)
  if warm then
    return fn()
  elseif warming then
    warming[#warming + 1] = fn
    return
  end
  warming = { fn }
  local i = 0
  local function next_module()
    i = i + 1
    local name = warm_modules[i]
    if not name then
      warm = true
      local waiting = warming
      warming = nil
      for _, f in ipairs(waiting) do
        f()
      end
      return
    end
    if not package.loaded[name] then
      pcall(require, name)
    end
    vim.schedule(next_module)
  end
  next_module()
end

local function start_now(chat, on_attach)
  local buf = chat.prompt_buf
  if not api.nvim_buf_is_valid(buf) or not api.nvim_buf_is_loaded(buf) then
    return
  end
  local cmd = M.server(chat)
  local ok, id = pcall(vim.lsp.start, {
    name = M.name,
    cmd = cmd,
    root_dir = chat.cwd,
    on_attach = function(client, bufnr)
      if bufnr == buf and on_attach then
        on_attach(client)
      end
    end,
  }, {
    bufnr = buf,
    -- One server per chat: never share another prompt's.
    reuse_client = function()
      return false
    end,
  })
  if not ok or not id then
    return
  end
  api.nvim_create_autocmd({ "BufWipeout", "BufUnload" }, {
    buffer = buf,
    once = true,
    callback = function()
      -- Every client of this chat's server: a user's restart (:lsp restart, :LspRestart) starts
      -- another one from the same config, whose id this autocmd never saw.
      for _, client in ipairs(vim.lsp.get_clients({ name = M.name })) do
        if client.config.cmd == cmd then
          M.stop(client.id)
        end
      end
    end,
  })
end

--- Start the chat's server and attach it to its prompt buffer (in the background: the chat opens
--- first); stopped when the buffer goes. `on_attach(client)` once it is initialized and
--- attached (never when Neovim refused: the omnifunc still completes).
---@param chat acpchat.Chat
function M.start(chat, on_attach)
  when_warm(function()
    start_now(chat, on_attach)
  end)
end

--- Stop a prompt's server.
function M.stop(id)
  local client = vim.lsp.get_client_by_id(id)
  if client then
    client:stop(true)
  end
end

--- The running prompt servers (for :checkhealth and tests).
function M.clients()
  return vim.lsp.get_clients({ name = M.name })
end

return M
