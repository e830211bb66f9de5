-- The live sessions picker of :AcpChatSessions: a floating list that shows the sessions this
-- plugin recorded (the local index) at once and merges each agent's own list as it answers,
-- the agents still asked named in its title. Used when vim.ui.select is Neovim's own (an
-- inputlist that waits for every agent and prints thousands of lines); a picker the user
-- installed (telescope, fzf-lua, dressing) gets the whole list through vim.ui.select instead.

local util = require("acpchat.util")

local api = vim.api
local M = {}

--- Neovim's own vim.ui.select (not replaced by a plugin or a test).
function M.wanted()
  local info = debug.getinfo(vim.ui.select, "S")
  return info ~= nil and info.source:find("vim/ui.lua", 1, true) ~= nil
end

local UUID = "^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$"

--- A title a person reads: never a bare session id, never the conversation handed over
--- (`:AcpChat! agent from`) that some agents take as the session's title.
---@param s table a session as the host lists it (session_id, title, prompt)
---@return string
function M.title(s)
  local t = s.title and vim.trim(s.title) or ""
  -- The hand-off's context first: the user's own words (the index keeps them) or what follows it.
  if t:find("handed over to you", 1, true) or t:find("acpchat://chat/", 1, true) then
    t = s.prompt or t:match("continue from it[%p%s]*(.-)$") or ""
  end
  t = t:gsub("%s+", " ")
  if t == "" or t == s.session_id or t:match(UUID) then
    t = s.prompt and s.prompt:gsub("%s+", " ") or ""
  end
  if t == "" then
    return "(untitled) " .. tostring(s.session_id):sub(1, 8)
  end
  return vim.fn.strcharlen(t) > 80 and (vim.fn.strcharpart(t, 0, 79) .. "…") or t
end

--- The sessions of `names` in their folders that the local index holds (newest first).
---@param file string the index (the host writes it: camelCase keys)
---@param cwds table<string, string> agent name -> folder
function M.indexed(file, cwds)
  local ok, data = pcall(function()
    return vim.json.decode(table.concat(vim.fn.readfile(file), "\n"))
  end)
  local out = {}
  if not ok or type(data) ~= "table" then
    return out
  end
  for _, s in ipairs(data) do
    if type(s) == "table" and cwds[s.agent] and s.cwd == cwds[s.agent] then
      out[#out + 1] = {
        name = s.agent,
        s = {
          session_id = s.sessionId,
          title = s.title,
          prompt = s.prompt,
          updated_at = s.updatedAt,
          cwd = s.cwd,
        },
        indexed = true,
      }
    end
  end
  return out
end

local function key(e)
  return e.name .. "\0" .. tostring(e.s.session_id)
end

--- Open the picker. `o`: title (string), label(e) -> string, choose(e) (the entry picked: <CR>),
--- rename(e) (`r`, optional), closed() (optional: the window closed, however).
--- Returns the picker: add(entries), progress(text), win, buf.
function M.open(o)
  local buf = api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "acpchat_sessions"
  local width = math.max(40, math.min(140, vim.o.columns - 6))
  local height = math.max(3, math.min(20, vim.o.lines - 8))
  local p = { entries = {}, by_key = {}, buf = buf, title = o.title, note = "" }
  local function title()
    return " " .. p.title .. (p.note ~= "" and ("  " .. p.note) or "") .. " "
  end
  p.win = api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    title = title(),
    title_pos = "center",
    footer = " <CR> open  " .. (o.rename and "r rename  " or "") .. "/ search  q close ",
    footer_pos = "center",
  })
  vim.wo[p.win].cursorline = true
  if o.closed then
    -- However it closes (picked, q, :close, another window's :only): listings stop.
    api.nvim_create_autocmd("WinClosed", { pattern = tostring(p.win), once = true, callback = o.closed })
  end
  local function draw()
    if not api.nvim_buf_is_valid(buf) then
      return
    end
    local lines = {}
    for i, e in ipairs(p.entries) do
      lines[i] = e.line
    end
    if #lines == 0 then
      lines = { p.note ~= "" and "…" or "no past sessions here" }
    end
    vim.bo[buf].modifiable = true
    api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end
  --- Newest first, drawn; the cursor stays on the entry it was on.
  local function show()
    local cur = p.entries[api.nvim_win_get_cursor(p.win)[1]]
    -- The default order of plain strings sorts much faster than a comparator (5,000 entries).
    local keys, of = {}, {}
    for k, e in pairs(p.by_key) do
      local sk = (e.s.updated_at or "") .. "\0" .. k
      keys[#keys + 1], of[sk] = sk, e
    end
    table.sort(keys)
    p.entries = {}
    for i = #keys, 1, -1 do
      p.entries[#p.entries + 1] = of[keys[i]]
    end
    draw()
    for i, x in ipairs(p.entries) do
      if cur and key(x) == key(cur) then
        api.nvim_win_set_cursor(p.win, { i, 0 })
        break
      end
    end
  end
  --- Merge `list` (labelled a few milliseconds' worth per turn of the editor's loop: an agent's
  --- 5,000 sessions do not hold the editor), then draw and call `done`.
  function p.add(list, done)
    local i = 1
    local function step()
      if not api.nvim_win_is_valid(p.win) then
        return
      end
      local t0 = vim.uv.hrtime()
      while i <= #list do
        local e = list[i]
        local k = key(e)
        local old = p.by_key[k]
        if old then
          -- The agent's own entry wins; what only the index knows (the user's words) stays.
          e.s.prompt = e.s.prompt or old.s.prompt
          e.s.title = e.s.title or old.s.title
        end
        e.line = o.label(e)
        p.by_key[k] = e
        i = i + 1
        if i % 64 == 0 and vim.uv.hrtime() - t0 > 5e6 then
          return vim.schedule(step)
        end
      end
      show()
      if done then
        done()
      end
    end
    step()
  end
  function p.progress(note)
    p.note = note
    if api.nvim_win_is_valid(p.win) then
      api.nvim_win_set_config(p.win, { title = title(), title_pos = "center" })
      if #p.entries == 0 then
        draw()
      end
    end
  end
  local function close()
    if api.nvim_win_is_valid(p.win) then
      api.nvim_win_close(p.win, true)
    end
  end
  local function pick(fn)
    return function()
      local e = p.entries[api.nvim_win_get_cursor(p.win)[1]]
      if e then
        close()
        fn(e)
      end
    end
  end
  local map = function(lhs, fn)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true })
  end
  map("<CR>", pick(o.choose))
  if o.rename then
    map("r", pick(o.rename))
  end
  map("q", close)
  map("<Esc>", close)
  draw()
  return p
end

--- :AcpChatSessions through the live picker: the index's sessions of `names` now, each
--- agent's list merged as it answers. `d`: spec(name), list(spec, cwd, cb) -> abandon (a
--- function that stops that listing, optional), label(s, cwd), chosen(e), rename(e)
--- (optional), root (the folder when an agent names none).
function M.pick(names, delete, d)
  local cwds, specs = {}, {}
  for _, name in ipairs(names) do
    local spec = d.spec(name)
    if spec then
      specs[name] = spec
      cwds[name] = spec.cwd or d.root
    end
  end
  local multi = #names > 1
  local abandons = {}
  local p = M.open({
    title = (delete and "Delete a session" or "Open a session") .. (multi and "" or (" of " .. names[1])),
    label = function(e)
      return (multi and ("[" .. e.name .. "]  ") or "") .. d.label(e.s, e.cwd)
    end,
    choose = d.chosen,
    rename = not delete and d.rename or nil,
    closed = function()
      -- Picked or dismissed: the lists still coming are of no use, and their pages would only
      -- compete with the session being opened (its replay) for the host.
      for name, abandon in pairs(abandons) do
        abandons[name] = nil
        abandon()
      end
    end,
  })
  local indexed = M.indexed(d.index, cwds)
  for _, e in ipairs(indexed) do
    e.spec, e.cwd = specs[e.name], cwds[e.name]
  end
  p.add(indexed)
  local waiting, failed = {}, {}
  local function say()
    local asking = {}
    for _, n in ipairs(names) do
      if waiting[n] then
        asking[#asking + 1] = n
      end
    end
    local note = #asking > 0 and ("asking " .. table.concat(asking, ", ") .. "…") or ""
    if #failed > 0 then
      note = vim.trim(note .. "  no list from " .. table.concat(failed, "; "))
    end
    p.progress(note)
  end
  for _, name in ipairs(names) do
    if specs[name] then
      waiting[name] = true
    end
  end
  say()
  --- Each agent asked for its sessions; each answer merged.
  local function ask()
    for _, name in ipairs(names) do
      local spec = specs[name]
      if spec then
        abandons[name] = d.list(spec, cwds[name], function(err, res)
          waiting[name] = nil
          abandons[name] = nil
          if not api.nvim_win_is_valid(p.win) then
            return -- closed meanwhile (its listing abandoned): nobody to tell
          end
          if err then
            failed[#failed + 1] = name
            -- The whole error (redacted by the host) in :messages; the title only names the agent.
            util.notify("acpchat: could not list the sessions of " .. name .. ": " .. err, vim.log.levels.ERROR)
          elseif delete and not res.can_delete or not delete and not res.can_open then
            failed[#failed + 1] = name .. (delete and " (cannot delete)" or " (cannot open)")
          else
            local list = {}
            for _, x in ipairs(res.sessions) do
              list[#list + 1] = { name = name, spec = spec, cwd = cwds[name], s = x, can_rename = res.can_rename }
            end
            return p.add(list, say)
          end
          say()
        end)
      end
    end
  end
  -- Asked on the next turn of the loop, once the picker is drawn: the first call starts the
  -- Node host, and starting a process forks the editor (on Neovim 0.10, tens to hundreds of
  -- milliseconds for a large editor on a loaded machine). A picker closed by then asks nobody.
  vim.schedule(function()
    if api.nvim_win_is_valid(p.win) then
      ask()
    end
  end)
  return p
end

return M
