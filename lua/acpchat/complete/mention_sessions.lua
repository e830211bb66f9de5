-- `@session:<name>` mentions: past chats of this project that have a local transcript (from
-- the session index Node keeps), offered by name and sent as their transcript's text, capped.
local history = require("acpchat.transcript.history")

local uv = vim.uv or vim.loop
local M = {}

--- Most bytes of a transcript read (its end: where the conversation stopped).
M.max_transcript = 96 * 1024

--- A session's title as one token: spaces and `@` become `-`, stops at its end go.
function M.slug(title)
  local s = vim.trim(title or ""):gsub("[%s@]+", "-"):gsub("[%c]", ""):gsub("[.,;:!?)]+$", "")
  return vim.fn.strcharpart(s, 0, 48)
end

local function history_file(sid)
  return history.dir() .. "/" .. sid:gsub("[^%w%-_.]", "_") .. ".md"
end

-- First prompts by session id: a history's start never changes, and completion asks at every key.
local first_prompts = {}

--- A session with no title reads as its first prompt (the first "> " line of its local
--- history, redacted as it was drawn), not as a piece of its id.
local function first_prompt(sid)
  if first_prompts[sid] == nil then
    local f = io.open(history_file(sid), "rb")
    local head = f and f:read(4096) or ""
    if f then
      f:close()
    end
    local line = ("\n" .. head):match("\n> ([^\n]+)")
    -- Its first words name it well enough, and keep the token short.
    local words = line and vim.split(vim.trim(line), "%s+", { trimempty = true }) or {}
    first_prompts[sid] = #words > 0 and table.concat(vim.list_slice(words, 1, 6), " ") or false
  end
  return first_prompts[sid] or nil
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
      local title = type(s.title) == "string" and s.title ~= "" and s.title or first_prompt(s.sessionId)
      local slug = M.slug(title or "")
      if slug == "" then
        slug = (s.agent or "chat") .. "-" .. tostring(s.updatedAt or ""):sub(1, 16):gsub("[^%w]+", "-")
      end
      -- Two chats of the same name: the later one (older) gets its date after the name.
      if seen[slug] then
        slug = slug .. "-" .. tostring(s.updatedAt or s.sessionId):sub(1, 16):gsub("[^%w]+", "-")
      end
      if seen[slug] then
        slug = s.sessionId:sub(1, 12)
      end
      seen[slug] = true
      out[#out + 1] =
        { slug = slug, title = title, agent = s.agent, session_id = s.sessionId, updated = s.updatedAt, cwd = s.cwd }
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

--- `@session:<name>`: the past chat's transcript as a text item, or nil and why not.
function M.item(chat, name)
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

return M
