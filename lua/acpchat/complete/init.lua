-- Prompt completion: `/` (first thing in the prompt) completes the agent's slash commands, `@`
-- the files under the session's cwd (images and audio among them: they are attached as such).
--
-- Two ways in, one source of candidates (prompt_items.lua, project_files.lua):
-- - an in-process language server named "acpchat" attached to each prompt buffer
--   (prompt_lsp.lua), which nvim-cmp, blink.cmp, mini.completion and Neovim's own
--   vim.lsp.completion (0.11+) ask like any other server;
-- - 'omnifunc' (<C-x><C-o>), which works on every Neovim, 0.10 included.
-- Unless the user's completion engine is loaded, the menu opens by itself as `/` or `@` is typed:
-- through vim.lsp.completion on 0.11+, through the omnifunc on 0.10 (`completion.menu`).
-- The file list comes from project_files.lua: listed in the background, never waited for.
local config = require("acpchat.config")
local prompt_items = require("acpchat.complete.prompt_items")
local project_files = require("acpchat.complete.project_files")
local file_match = require("acpchat.complete.file_match")
local registry = require("acpchat.chat.registry")
local prompt_lsp = require("acpchat.complete.prompt_lsp")
local mentions = require("acpchat.complete.mentions")

local api = vim.api
local M = {}

--- Most files offered for one `@`; what `/` and `@` complete; how a file is described
--- (prompt_items.lua, shared with the language server).
M.max_items = prompt_items.max_items
M.context = prompt_items.context
M.media_type = prompt_items.media_type
M.size_text = prompt_items.size_text
M.describe = prompt_items.describe
M.commands = prompt_items.commands

local function chat_of(buf)
  for _, c in pairs(registry.chats) do
    if c.prompt_buf == buf then
      return c
    end
  end
end
M.chat_of = chat_of

--- Files of the chat's cwd matching `prefix`, without waiting: what the (possibly still growing)
--- list holds now, matched within `budget_ms`. Returns paths and whether more may match.
---@param cwd string
function M.files_now(cwd, prefix, limit, budget_ms)
  local files, whole = project_files.get(cwd)
  local out, more
  file_match.match(files, prefix or "", limit or M.max_items, function(paths, truncated)
    out, more = paths, truncated
  end, { sync = true, budget_ms = budget_ms or 15 })
  return out, more or not whole
end

--- Files under `cwd` matching `prefix` (relative paths), capped. Kept for callers of the old API.
---@param cwd string
function M.files(cwd, prefix, max)
  return (M.files_now(cwd, prefix, max or M.max_items))
end

--- Candidates for the word before the cursor ("/name" or "@path"), as complete-items; and
--- whether more may match (the file list is still growing, or was cut at M.max_items).
---@param chat acpchat.Chat
function M.candidates(chat, word)
  local items, more = {}, false
  local popup = vim.o.completeopt:find("popup") ~= nil
  if word:sub(1, 1) == "/" then
    for _, c in ipairs(M.commands(chat, word:sub(2))) do
      local hint = c.hint and (" " .. c.hint) or ""
      items[#items + 1] = { word = "/" .. c.name, abbr = "/" .. c.name .. hint, menu = c.description, kind = "cmd" }
    end
  elseif word:sub(1, 1) == "@" then
    -- Whether the list is complete does not matter here: the menu is always asked again (below).
    local paths = M.files_now(chat.cwd, word:sub(2))
    local others = mentions.candidates(chat, word:sub(2), paths)
    -- The server matches anywhere in the path: Vim must not narrow the menu by prefix
    -- (`equal`); it asks again as more is typed (`refresh`).
    local function add_other(m)
      items[#items + 1] =
        { word = "@" .. m.token, menu = m.detail, kind = m.kind, info = popup and m.doc or nil, equal = 1 }
    end
    for _, m in ipairs(others) do
      if m.best == 1 then
        add_other(m)
      end
    end
    -- The omnifunc answers at once: sizes it does not know yet are looked up for a few ms only.
    local t0 = vim.uv.hrtime()
    for _, f in ipairs(paths) do
      local st = project_files.stat_cached(chat.cwd, f)
      local gone = false
      if not st and vim.uv.hrtime() - t0 < 5e6 then
        st = project_files.stat_now(chat.cwd, f)
        -- Deleted since it was listed, or a symlink that leads nowhere: nothing to send.
        gone = st == nil
      end
      if not gone and not (st and (st.outside or st.type == "directory")) then
        local d = M.describe(f, st)
        -- The documentation only where it goes to a popup (0.10's "preview" would open a window).
        items[#items + 1] =
          { word = "@" .. f, menu = d.detail, kind = d.media or "file", info = popup and d.doc or nil, equal = 1 }
      end
    end
    for _, m in ipairs(others) do
      if m.best ~= 1 then
        add_other(m)
      end
    end
    -- Symbols the language servers told for this word, when they have answered (asked now:
    -- the menu is opened again when they do).
    for _, sym in ipairs(M.symbols_now(chat, word:sub(2))) do
      items[#items + 1] =
        { word = "@" .. sym.token, menu = sym.kind .. " · " .. sym.token:match(":(.*)$"), kind = "symbol", equal = 1 }
    end
    more = true
  end
  return items, more
end

-- The language servers' symbols by query, as last told: { query, items, asked }.
local symbol_answers = {}

--- The symbols known now for `query` (the omnifunc answers at once); asks the language servers
--- when not asked yet, and opens the menu again with their answer while the word is typed.
function M.symbols_now(chat, query)
  local known = symbol_answers[chat.prompt_buf]
  if known and known.query == query then
    return known.items or {}
  end
  if query == "" or query:find("[/:%s]") then
    return {}
  end
  local mine = { query = query }
  symbol_answers[chat.prompt_buf] = mine
  mentions.symbols(chat, query, function(list)
    mine.items = list
    if
      #list == 0
      or symbol_answers[chat.prompt_buf] ~= mine
      or vim.fn.mode() ~= "i"
      or api.nvim_get_current_buf() ~= chat.prompt_buf
    then
      return
    end
    local r, c = unpack(api.nvim_win_get_cursor(0))
    local ctx = M.context(api.nvim_get_current_line():sub(1, c), r - 1)
    if ctx and ctx.kind == "file" and ctx.prefix == query and chat.menu_mode == "omnifunc" then
      -- As the menu that opens by itself: nothing goes into the prompt until an item is picked.
      local cot = vim.o.completeopt
      local keep = (cot:find("noselect") or cot:find("noinsert")) and "" or "<C-p>"
      api.nvim_feedkeys(vim.keycode("<C-x><C-o>" .. keep), "n", false)
    end
  end)
  return {}
end

function M.omnifunc(findstart, base)
  local line = api.nvim_get_current_line()
  local col = api.nvim_win_get_cursor(0)[2]
  if findstart == 1 then
    -- What the language server would complete here, or nothing (-3: leave completion quietly).
    local ctx = M.context(line:sub(1, col), api.nvim_win_get_cursor(0)[1] - 1)
    return ctx and ctx.col or -3
  end
  local chat = chat_of(api.nvim_get_current_buf())
  if not chat then
    return {}
  end
  local items, more = M.candidates(chat, base)
  if more then
    -- Asked again as more is typed: the list grows, or was cut short.
    return { words = items, refresh = "always" }
  end
  return items
end

--- The completion engine the user has loaded, if any: it asks the language server itself.
function M.engine()
  if package.loaded["blink.cmp"] then
    return "blink.cmp"
  elseif package.loaded["cmp"] then
    return "nvim-cmp"
  elseif rawget(_G, "MiniCompletion") then
    return "mini.completion"
  elseif package.loaded["coq"] then
    return "coq_nvim"
  end
end

--- How the menu opens by itself in the prompt: "lsp" (vim.lsp.completion), "omnifunc", or nil
--- (an engine does it, or the user turned it off).
function M.menu_mode(client_id)
  local opts = config.options.completion or {}
  local menu = opts.menu or "auto"
  if menu == "none" or (menu == "auto" and M.engine()) then
    return nil
  end
  if client_id and vim.lsp.completion and vim.lsp.completion.enable then
    return "lsp"
  end
  return "omnifunc"
end

--- Open the omnifunc's menu as soon as `/` (first in the prompt) or `@` is typed (Neovim 0.10,
--- or when the language server is off).
---@param chat acpchat.Chat
local function omnifunc_trigger(chat, group)
  -- Opens the menu where the cursor is, if there is something to offer. Nothing yet (the agent
  -- has not told its commands, the file list is being made): tried again a few times while the
  -- prompt stays as it is.
  local function open(tries, was)
    if vim.fn.mode() ~= "i" or vim.fn.pumvisible() ~= 0 or api.nvim_get_current_buf() ~= chat.prompt_buf then
      return
    end
    local r, c = unpack(api.nvim_win_get_cursor(0))
    local line = api.nvim_get_current_line()
    local now = r .. ":" .. c .. ":" .. line
    if was and was ~= now then
      return
    end
    local ctx = M.context(line:sub(1, c), r - 1)
    if not ctx then
      return
    end
    if #M.candidates(chat, (ctx.kind == "file" and "@" or "/") .. ctx.prefix) == 0 then
      if tries > 0 then
        vim.defer_fn(function()
          open(tries - 1, now)
        end, 100)
      end
      return
    end
    -- Without noselect or noinsert (0.10's 'completeopt' is global), <C-p> takes the first
    -- item back out of the prompt: nothing is inserted until one is picked.
    local cot = vim.o.completeopt
    local keep = (cot:find("noselect") or cot:find("noinsert")) and "" or "<C-p>"
    if not cot:find("menuone") then
      -- Without menuone a single candidate shows no menu (it is inserted, and <C-p> takes it
      -- back): 0.10's 'completeopt' is global, so menuone is added while this menu is open.
      vim.o.completeopt = cot .. ",menuone"
      api.nvim_create_autocmd({ "CompleteDone", "InsertLeave", "BufLeave" }, {
        group = group,
        once = true,
        callback = function()
          if vim.o.completeopt == cot .. ",menuone" then
            vim.o.completeopt = cot
          end
        end,
      })
    end
    api.nvim_feedkeys(vim.keycode("<C-x><C-o>" .. keep), "n", false)
  end
  api.nvim_create_autocmd("InsertCharPre", {
    buffer = chat.prompt_buf,
    group = group,
    callback = function()
      local ch = vim.v.char
      if (ch ~= "@" and ch ~= "/") or chat.menu_mode ~= "omnifunc" then
        return
      end
      local row, col = unpack(api.nvim_win_get_cursor(0))
      local before = api.nvim_get_current_line():sub(1, col) .. ch
      if not M.context(before, row - 1) then
        return
      end
      vim.schedule(function()
        -- For up to 3 s: the first chat of a session also starts the Node host and the agent.
        open(30)
      end)
    end,
  })
end

--- A menu that opens by itself should not put its first item into the prompt as you type.
local function prompt_completeopt(buf)
  local cot = vim.o.completeopt
  if not cot:find("noselect") and not cot:find("noinsert") then
    cot = cot .. ",noselect"
  end
  if not cot:find("menuone") then
    cot = cot .. ",menuone"
  end
  -- 'completeopt' can be local to a buffer since 0.11; on 0.10 the user's global one stays (and
  -- is not tried: a failed vim.bo write there leaves the buffer held by the autocmd window, and
  -- the prompt could then not be deleted).
  local ok, info = pcall(api.nvim_get_option_info2, "completeopt", {})
  if ok and (info.global_local or info.scope == "buf") then
    vim.bo[buf].completeopt = cot
  end
end

--- :checkhealth acpchat's completion section.
function M.check_health(health)
  health.start("acp-chat.nvim: completion in the prompt")
  local opts = config.options.completion or {}
  if opts.lsp == false then
    health.info("language server: off (completion.lsp = false); the omnifunc completes")
  else
    local n = #prompt_lsp.clients()
    health.ok(string.format('language server: "acpchat", inside Neovim (no process), one per chat; %d running', n))
  end
  local engine = M.engine()
  local menu = opts.menu or "auto"
  if menu == "none" then
    health.info('menu: opens on <C-x><C-o> or through your engine (completion.menu = "none")')
  elseif menu == "auto" and engine then
    health.ok(engine .. " is loaded: it shows the server's items (the built-in menu stays off)")
  elseif opts.lsp ~= false and vim.lsp.completion and vim.lsp.completion.enable then
    health.ok("menu: vim.lsp.completion, opening as you type / or @")
  else
    health.ok("menu: the omnifunc, opening as you type / or @")
  end
  if vim.fn.executable("git") == 1 then
    health.ok("@ files: `git ls-files` in git work trees, a background walk elsewhere")
  else
    health.info("@ files: git not found: folders are walked (in the background; .gitignore is not read)")
  end
  health.ok(
    "@ mentions: @diagnostics[:all] @quickfix @buffers @selection @folder/ @session:<name>, symbols; see :help acpchat-mentions"
  )
  local symbol_servers = {}
  for _, c in ipairs(vim.lsp.get_clients()) do
    local caps = c.server_capabilities or {}
    if caps.workspaceSymbolProvider then
      symbol_servers[#symbol_servers + 1] = c.name
    end
  end
  if #symbol_servers > 0 then
    health.ok("@ symbols: from " .. table.concat(symbol_servers, ", ") .. " (workspace/symbol)")
  else
    health.info(
      "@ symbols: no language server answering workspace/symbol is running now (they start with a file of their language)"
    )
  end
end

--- Set up completion in the chat's prompt buffer: the language server, the file list (listed
--- now, in the background), and the menu that opens as `/` or `@` is typed.
---@param chat acpchat.Chat
function M.attach(chat)
  local group = api.nvim_create_augroup("AcpChatComplete" .. chat.prompt_buf, { clear = true })
  -- Listing starts a process (git) or file system calls: a turn of the loop after the chat opened.
  vim.schedule(function()
    project_files.prefetch(chat.cwd)
  end)
  -- The server's trigger characters are known once it is initialized: until then (a moment)
  -- the omnifunc opens the menu.
  local client_id
  local function choose()
    local mode = M.menu_mode(client_id)
    if mode == chat.menu_mode then
      return
    end
    if chat.menu_mode == "lsp" then
      pcall(vim.lsp.completion.enable, false, client_id, chat.prompt_buf)
    end
    chat.menu_mode = mode
    if mode == "lsp" then
      vim.lsp.completion.enable(true, client_id, chat.prompt_buf, { autotrigger = true })
    end
    if mode then
      prompt_completeopt(chat.prompt_buf)
    end
  end
  choose()
  if (config.options.completion or {}).lsp ~= false then
    prompt_lsp.start(chat, function(client)
      client_id = client.id
      chat.lsp_client = client.id
      if api.nvim_buf_is_valid(chat.prompt_buf) then
        choose()
      end
    end)
  end
  omnifunc_trigger(chat, group)
  -- The server stopped by hand (:LspStop, :lsp stop): the omnifunc opens the menu again.
  api.nvim_create_autocmd("LspDetach", {
    buffer = chat.prompt_buf,
    group = group,
    callback = function(ev)
      if client_id and ev.data and ev.data.client_id == client_id then
        client_id, chat.lsp_client = nil, nil
        vim.schedule(function()
          if api.nvim_buf_is_valid(chat.prompt_buf) then
            choose()
          end
        end)
      end
    end,
  })
  -- An engine loaded lazily (on InsertEnter) takes over from the built-in menu.
  api.nvim_create_autocmd("InsertEnter", {
    buffer = chat.prompt_buf,
    group = group,
    callback = function()
      vim.schedule(function()
        if api.nvim_buf_is_valid(chat.prompt_buf) then
          choose()
        end
      end)
    end,
  })
end

return M
