-- The files under a session's cwd, for `@` completion: listed in the background and cached per
-- folder, so completing never waits on the file system.
--
-- In a git work tree the list is `git ls-files` (tracked and untracked files that .gitignore does
-- not hide), read as it streams; elsewhere the tree is walked with asynchronous scandir calls
-- (never into .git, .hg, .svn or node_modules, never through a symlinked folder). Either way the
-- list only holds paths below the cwd, relative to it, that an `@` mention can name (see
-- M.mentionable), at most `M.max_files` of them. A list older than `M.stale_ms` is listed again in the
-- background on next use; the old one answers meanwhile. Matching what is typed against it is
-- acpchat.complete.file_match's.
local uv = vim.uv or vim.loop

local M = {}

--- The most files kept for one folder.
M.max_files = 100000
--- After this long a list is refreshed (in the background) when next used.
M.stale_ms = 10000
--- Folders never walked into.
M.skip_dirs = { [".git"] = true, [".hg"] = true, [".svn"] = true, ["node_modules"] = true }

--- Whether `s` (bytes 0x80 and up in it) is valid UTF-8 and holds none of the spaces beyond ASCII
--- that JavaScript's `\s` knows (U+00A0, U+1680, U+2000-200A, U+2028, U+2029, U+202F, U+205F,
--- U+3000, U+FEFF).
local function plain_utf8(s)
  local i, n = 1, #s
  while i <= n do
    local b = s:byte(i)
    if b < 0x80 then
      i = i + 1
    else
      local len = b >= 0xF0 and b <= 0xF4 and 4 or b >= 0xE0 and 3 or b >= 0xC2 and b < 0xE0 and 2 or 0
      if len == 0 or i + len - 1 > n then
        return false
      end
      local cp = len == 2 and b - 0xC0 or len == 3 and b - 0xE0 or b - 0xF0
      for k = i + 1, i + len - 1 do
        local c = s:byte(k)
        if c < 0x80 or c > 0xBF then
          return false
        end
        cp = cp * 64 + (c - 0x80)
      end
      -- Overlong forms, surrogates and code points past U+10FFFF are no UTF-8 either.
      if
        (len == 3 and cp < 0x800)
        or (len == 4 and (cp < 0x10000 or cp > 0x10FFFF))
        or (cp >= 0xD800 and cp <= 0xDFFF)
      then
        return false
      end
      if
        cp == 0xA0
        or cp == 0x1680
        or (cp >= 0x2000 and cp <= 0x200A)
        or cp == 0x2028
        or cp == 0x2029
        or cp == 0x202F
        or cp == 0x205F
        or cp == 0x3000
        or cp == 0xFEFF
      then
        return false
      end
      i = i + len
    end
  end
  return true
end

--- Whether a path can be written as an `@` mention that names it: the prompt reads one up to the
--- first space or `@` and drops the stops that end a sentence (`.,;:!?)`) from its end
--- (src/session/prompt-builder.ts), and Node reads the prompt as UTF-8; so paths holding a space
--- (JavaScript's `\s`, Unicode ones too) or an `@`, ending with such a stop, or whose bytes are no
--- UTF-8 (they would reach the agent as another name) are left out (:AcpChatAdd takes them).
---@param path string
function M.mentionable(path)
  return not path:find("[.,;:!?)]$") and M.folder_mentionable(path)
end

--- Whether paths under folder `path` can be mentioned (a stop at its end does no harm there).
---@param path string
function M.folder_mentionable(path)
  return not path:find("[%s@]") and (not path:find("[\128-\255]") or plain_utf8(path))
end

--- cwd -> { files = string[], done = boolean, at = ms, job = listing|nil }
local lists = {}

local function now_ms()
  return uv.hrtime() / 1e6
end

--- Neovim's CPU time so far, in ms: what a piece of work cost, however busy the machine is
--- (wall time would count the moments another process had the CPU).
local function cpu_ms()
  local r = assert(uv.getrusage())
  return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
end
M.cpu_ms = cpu_ms

--- The longest the editor's loop was held by one piece of this work (listing, matching,
--- describing), in ms of CPU time: what "never waits" means, measured (tests read it).
M.busiest_ms = 0

--- Note a piece of work that started at `c0` (cpu_ms()).
function M.note_busy(c0)
  local d = cpu_ms() - c0
  if d > M.busiest_ms then
    M.busiest_ms = d
  end
end

--- A listing of `cwd` into a fresh list; calls `finish(files, ok)` on the main loop.
local function walk(cwd, files, state, finish)
  -- A queue of folders still to read: queue[head..tail].
  local queue, head, tail, active = { "" }, 1, 1, 0
  local stopped = false
  local function done()
    if not stopped then
      stopped = true
      vim.schedule(function()
        finish(files, true)
      end)
    end
  end
  local pump
  local function scan(rel)
    active = active + 1
    uv.fs_scandir(rel == "" and cwd or (cwd .. "/" .. rel), function(err, req)
      -- A fast-event callback: plain table work only. Entries are read in slices (a folder may
      -- hold a hundred thousand names), the next slice after the editor had its turn.
      local function take()
        if state.cancelled or stopped then
          active = active - 1
          return
        end
        local c0 = cpu_ms()
        local n = 0
        while req and n < 2000 do
          local name, kind = uv.fs_scandir_next(req)
          if not name then
            req = nil
            break
          end
          n = n + 1
          local path = rel == "" and name or (rel .. "/" .. name)
          if not M.folder_mentionable(name) then
            -- skipped: a prompt cannot name it with @ (nor anything under it)
          elseif kind == "directory" then
            if not M.skip_dirs[name] then
              tail = tail + 1
              queue[tail] = path
            end
          elseif (kind == "file" or kind == "link") and M.mentionable(name) then
            files[#files + 1] = path
            if #files >= M.max_files then
              state.truncated = true
              req, queue, head, tail = nil, {}, 1, 0
              break
            end
          end
        end
        M.note_busy(c0)
        if req then
          return vim.schedule(take)
        end
        active = active - 1
        vim.schedule(pump)
      end
      if err then
        req = nil
      end
      take()
    end)
  end
  pump = function()
    if state.cancelled or stopped then
      return
    end
    while active < 4 and head <= tail do
      local rel = queue[head]
      queue[head] = nil
      head = head + 1
      scan(rel)
    end
    if active == 0 and head > tail then
      done()
    end
  end
  pump()
end

--- `git ls-files` in `cwd`, read as it streams; `finish(files, false)` when cwd is no work tree.
local function git(cwd, files, state, finish)
  local rest = ""
  -- core.fsmonitor names a command git runs for ls-files: whoever wrote the folder's .git/config
  -- (an agent, an archive) must not get a command run by opening a chat.
  local ok, proc = pcall(vim.system, {
    "git",
    "-c",
    "core.quotepath=off",
    "-c",
    "core.fsmonitor=false",
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
  }, {
    cwd = cwd,
    stdout = function(_, data)
      if not data or state.cancelled then
        return
      end
      local c0 = cpu_ms()
      data = rest .. data
      local from = 1
      while #files < M.max_files do
        local z = data:find("\0", from, true)
        if not z then
          break
        end
        local path = data:sub(from, z - 1)
        if M.mentionable(path) then
          files[#files + 1] = path
        end
        from = z + 1
      end
      rest = data:sub(from)
      M.note_busy(c0)
      if #files >= M.max_files and not state.truncated then
        state.truncated = true
        pcall(function()
          state.proc:kill(15)
        end)
      end
    end,
    stderr = false,
  }, function(res)
    vim.schedule(function()
      finish(files, state.truncated or res.code == 0)
    end)
  end)
  if not ok then
    return false
  end
  state.proc = proc
  return true
end

--- Start listing `cwd` (unless a listing runs). The list in use stays until the new one is whole.
local function refresh(cwd)
  local entry = lists[cwd]
  if entry.job then
    return
  end
  local state = { started = now_ms() }
  entry.job = state
  -- The first listing of a folder is used while it grows; a refresh is swapped in when done.
  local files = entry.done and {} or entry.files
  local function finish(list, ok)
    if state.cancelled then
      return
    end
    if not ok then
      -- Not a git work tree (or no git): walk the folder instead.
      for i = #list, 1, -1 do
        list[i] = nil
      end
      return walk(cwd, list, state, finish)
    end
    entry.files, entry.done, entry.at, entry.job = list, true, now_ms(), nil
    entry.truncated = state.truncated
    entry.took_ms = entry.at - state.started
    entry.stats = {}
    local waiting = entry.waiters or {}
    entry.waiters = nil
    for _, w in ipairs(waiting) do
      w()
    end
  end
  if vim.fn.executable("git") == 1 and git(cwd, files, state, finish) then
    return
  end
  walk(cwd, files, state, finish)
end

--- The files of `cwd` as known now (possibly still growing) and whether that list is whole and
--- fresh. Starts (or refreshes) the listing in the background when needed; never waits.
---@return string[] files, boolean complete
---@param cwd string
function M.get(cwd)
  local entry = lists[cwd]
  if not entry then
    entry = { files = {}, done = false, at = 0, stats = {} }
    lists[cwd] = entry
    refresh(cwd)
  elseif entry.done and not entry.job and now_ms() - entry.at > M.stale_ms then
    refresh(cwd)
  end
  return entry.files, entry.done and not entry.job
end

--- `cb()` once the listing of `cwd` under way is whole, or after `timeout_ms` (at once when none
--- is under way). Never waits itself: `cb` runs later on the main loop.
---@param cwd string
function M.when_listed(cwd, timeout_ms, cb)
  local entry = lists[cwd]
  if not entry or not entry.job then
    return vim.schedule(cb)
  end
  local called = false
  local function once()
    if not called then
      called = true
      cb()
    end
  end
  entry.waiters = entry.waiters or {}
  table.insert(entry.waiters, once)
  vim.defer_fn(once, timeout_ms)
end

--- Start listing `cwd` ahead of the first `@`.
---@param cwd string
function M.prefetch(cwd)
  M.get(cwd)
end

--- What is known about `cwd`'s listing (for :checkhealth and tests).
---@param cwd string
function M.info(cwd)
  local e = lists[cwd]
  if not e then
    return nil
  end
  return {
    count = #e.files,
    done = e.done,
    listing = e.job ~= nil,
    truncated = e.truncated or false,
    took_ms = e.took_ms,
  }
end

--- Forget every list (a listing under way is abandoned).
function M.reset()
  for _, e in pairs(lists) do
    if e.job then
      e.job.cancelled = true
      if e.job.proc then
        pcall(function()
          e.job.proc:kill(15)
        end)
      end
    end
  end
  lists = {}
end

--- The cached stat of `cwd/path` ({ size, type }), or nil.
---@param cwd string
---@param path string
function M.stat_cached(cwd, path)
  local e = lists[cwd]
  return e and e.stats[path]
end

local function inside(real, root)
  return real == root or real:sub(1, #root + 1) == root .. "/"
end

--- The folder `cwd` really is (symlinks resolved), to tell where a symlinked file leads.
local function root_of(cwd)
  local e = lists[cwd]
  if e and not e.real then
    e.real = uv.fs_realpath(cwd) or cwd
  end
  return e and e.real or uv.fs_realpath(cwd) or cwd
end

--- Stat `cwd/path` now (the omnifunc answers at once; callers bound how many) and cache it.
--- A symlink that leads out of the cwd is `outside` (the prompt would not send it).
---@param cwd string
---@param path string
function M.stat_now(cwd, path)
  local e = lists[cwd]
  local full = cwd .. "/" .. path
  local l = uv.fs_lstat(full)
  if not l then
    return nil
  end
  local s
  if l.type == "link" then
    local real = uv.fs_realpath(full)
    local st = real and uv.fs_stat(full)
    s = st and { size = st.size, type = st.type, outside = not inside(real, root_of(cwd)) } or nil
  else
    s = { size = l.size, type = l.type }
  end
  if e and s then
    e.stats[path] = s
  end
  return s
end

--- Stat `paths` (relative to `cwd`) without blocking; `cb(stats)` with stats[path] = { size,
--- type, outside } (missing when the file is gone; `outside`: a symlink out of the cwd) on the
--- main loop once all have answered.
---@param cwd string
function M.stat(cwd, paths, cb)
  local e = lists[cwd]
  local cache = e and e.stats or {}
  local root = root_of(cwd)
  local out, left = {}, 0
  local function one_done()
    left = left - 1
    if left == 0 then
      vim.schedule(function()
        cb(out)
      end)
    end
  end
  local function keep(p, s)
    cache[p], out[p] = s, s
    one_done()
  end
  left = 1
  for _, p in ipairs(paths) do
    if cache[p] then
      out[p] = cache[p]
    else
      left = left + 1
      local full = cwd .. "/" .. p
      uv.fs_lstat(full, function(err, l)
        if err or not l then
          return one_done()
        elseif l.type ~= "link" then
          return keep(p, { size = l.size, type = l.type })
        end
        uv.fs_realpath(full, function(err2, real)
          if err2 or not real then
            return one_done()
          end
          uv.fs_stat(full, function(err3, st)
            if err3 or not st then
              return one_done()
            end
            keep(p, { size = st.size, type = st.type, outside = not inside(real, root) })
          end)
        end)
      end)
    end
  end
  one_done()
end

return M
