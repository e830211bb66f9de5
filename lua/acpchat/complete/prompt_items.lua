-- What `/` and `@` complete in the prompt, and how a candidate is described: plain functions over
-- the prompt's text, the chat's commands and a file's stat, shared by the omnifunc
-- (complete.lua) and the prompt's language server (prompt_lsp.lua).
local config = require("acpchat.config")

local M = {}

--- Most files offered for one `@` (the rest come as more is typed: the list says it is incomplete).
M.max_items = 200

--- What is being completed, from the line up to the cursor (`before`) on 0-based line `row`:
--- { kind = "file" | "command", col = 0-based byte column of the `@` or `/`, prefix = the text
--- after it }, or nil. `@` starts a word (as the prompt builder reads mentions); `/` is only a
--- command as the first thing in the prompt.
---@param before string
---@param row integer?
function M.context(before, row)
  local at, word = before:match("()(@[^%s]*)$")
  if at and (at == 1 or before:sub(at - 1, at - 1):match("%s")) then
    return { kind = "file", col = at - 1, prefix = word:sub(2) }
  end
  local slash, cmd = before:match("^%s*()(/[^%s/]*)$")
  if slash and (row or 0) == 0 then
    return { kind = "command", col = slash - 1, prefix = cmd:sub(2) }
  end
end

-- Images and audio by extension, as the prompt builder sends them (src/session/attachments.ts).
local media = {
  png = { "image", "image/png" },
  jpg = { "image", "image/jpeg" },
  jpeg = { "image", "image/jpeg" },
  gif = { "image", "image/gif" },
  webp = { "image", "image/webp" },
  bmp = { "image", "image/bmp" },
  avif = { "image", "image/avif" },
  wav = { "audio", "audio/wav" },
  mp3 = { "audio", "audio/mpeg" },
  ogg = { "audio", "audio/ogg" },
  oga = { "audio", "audio/ogg" },
  opus = { "audio", "audio/opus" },
  flac = { "audio", "audio/flac" },
  m4a = { "audio", "audio/mp4" },
  aac = { "audio", "audio/aac" },
}

--- Image or audio by the file's extension: kind ("image" | "audio") and mimeType, or nil.
---@param path string
---@return "image"|"audio"|nil kind
---@return string? mime
function M.media_type(path)
  local ext = path:match("%.([%w]+)$")
  local m = ext and media[ext:lower()]
  if m then
    return m[1], m[2]
  end
end

--- A byte count as people read it: 812 B, 4.1 KB, 12 MB.
---@param n number
---@return string
function M.size_text(n)
  if n < 1024 then
    return n .. " B"
  end
  for _, u in ipairs({ "KB", "MB", "GB" }) do
    n = n / 1024
    if n < 1024 or u == "GB" then
      return (n < 10 and string.format("%.1f %s", n, u) or string.format("%d %s", math.floor(n + 0.5), u))
    end
  end
  error("unreachable: the loop returns at GB")
end

--- How a file is described in the menu and its documentation: `detail` (one short line) and
--- `doc` (markdown), from its path and its stat ({ size, type } or nil when not known yet).
---@param path string
---@param st { size: integer, type: string }?
function M.describe(path, st)
  local kind, mime = M.media_type(path)
  local ext = path:match("[^/]%.([%w]+)$")
  local what = (ext and (ext:lower() .. " ") or "") .. (kind or "file")
  local size = st and st.size and M.size_text(st.size)
  local detail = size and (what .. " · " .. size) or what
  local lines = { "`" .. path .. "`", detail .. (mime and (" (" .. mime .. ")") or "") }
  if st and st.type and st.type ~= "file" then
    lines[#lines + 1] = "not a regular file (" .. st.type .. "): it stays plain text"
  elseif kind then
    local limit = vim.tbl_get(config.options, "media", "max_bytes")
    if limit and st and st.size and st.size > limit then
      lines[#lines + 1] = string.format("larger than media.max_bytes (%s): it cannot be attached", M.size_text(limit))
    else
      lines[#lines + 1] = string.format(
        "attached as %s when the agent accepts %s, else as a link",
        kind == "image" and "an image" or "audio",
        kind == "image" and "images" or "audio"
      )
    end
  else
    lines[#lines + 1] = "its text goes with the prompt (or a link to it)"
  end
  return { detail = detail, doc = table.concat(lines, "\n\n"), media = kind }
end

--- The agent's commands (available_commands_update) that start with `prefix`. A name that holds
--- a space or a control character cannot be typed as one word after `/` (the menu showed
--- "evil\nname" as `/evil^@name` and put `/evil` in the prompt): left out.
---@param chat acpchat.Chat
---@param prefix string
function M.commands(chat, prefix)
  local out = {}
  for _, c in ipairs(chat.status and chat.status.commands or {}) do
    if type(c.name) == "string" and c.name ~= "" and not c.name:find("[%s%c]") and vim.startswith(c.name, prefix) then
      out[#out + 1] = c
    end
  end
  return out
end

return M
