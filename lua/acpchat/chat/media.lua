-- Images and audio in the transcript: the clip under the cursor opened (vim.ui.open on a file
-- in the chat's private temp folder, written by Node with the exact decoded bytes) or saved
-- (vim.ui.input for the path; a confirmation before replacing a file). The data itself stays in
-- Node: the buffer only ever shows one line per clip.
local blocks = require("acpchat.transcript.blocks")
local bridge = require("acpchat.host.bridge")
local text = require("acpchat.transcript.text")
local util = require("acpchat.util")
local registry = require("acpchat.chat.registry")
local config = require("acpchat.config")
local prompt = require("acpchat.chat.prompt")

local api = vim.api
local M = {}

--- Whether the chat was closed while Node worked on it (its answer then has no one to tell).
---@param chat acpchat.Chat
local function gone(chat)
  return registry.get(chat.id) ~= chat
end

--- The clip a block shows on its row `offset`: { block = id, index = n (in a tool call's content) }.
local function clip_of(id, b, offset)
  if b.type == "media" and offset == 0 then
    return { block = id }
  end
  if b.type == "tool" and b.view then
    local index = text.media_at(b.view, offset)
    if index then
      return { block = id, index = index }
    end
  end
end

--- The clip under the cursor: { block = id, index = n }, or nil. Blocks an earlier incarnation
--- of the chat drew are among them (block ids are never reused; Node still has their clips).
---@param chat acpchat.Chat
function M.at_cursor(chat)
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local id, b, offset = blocks.at_row(chat, row)
  if id then
    return clip_of(id, b, offset)
  end
end

--- Open the clip under the cursor with the system's viewer; elsewhere, the URL under the cursor
--- (what `gx` does in other buffers).
---@param chat acpchat.Chat
function M.open(chat)
  local ref = M.at_cursor(chat)
  if not ref then
    local cfile = vim.fn.expand("<cfile>")
    if cfile:match("^%a[%w+.-]*://") and vim.ui.open then
      return vim.ui.open(cfile)
    end
    return util.notify("acpchat: no image or audio under the cursor", vim.log.levels.WARN)
  end
  bridge.call("media_open", { chat = chat.id, block = ref.block, index = ref.index }, function(err, res)
    ---@cast res acpchat.reply.MediaOpen
    if gone(chat) then
      return
    end
    if err then
      return util.notify("acpchat: could not open it: " .. err, vim.log.levels.ERROR)
    end
    M.last_opened = res.path
    local ok, e = pcall(M.ui_open, res.path)
    if not ok then
      util.notify("acpchat: could not open " .. res.path .. ": " .. tostring(e), vim.log.levels.ERROR)
    end
  end)
end

--- vim.ui.open, and a clear message when it fails (no viewer on this machine).
---@param path string
function M.ui_open(path)
  local cmd, err = vim.ui.open(path)
  if not cmd then
    return util.notify("acpchat: could not open " .. path .. ": " .. tostring(err), vim.log.levels.ERROR)
  end
  -- vim.ui.open runs the viewer in the background; say where the file is if it fails. Only a
  -- viewer that has ended is asked how: SystemObj:wait() on a running one kills it (SIGKILL
  -- when the timeout passes, even 0), which would stop an audio player after 2 seconds.
  if type(cmd) == "table" and cmd.wait and cmd.is_closing then
    vim.defer_fn(function()
      local ended, closing = pcall(cmd.is_closing, cmd)
      if not (ended and closing) then
        return
      end
      local ok, done = pcall(cmd.wait, cmd, 0)
      if ok and done and done.code and done.code ~= 0 then
        util.notify(
          string.format("acpchat: the viewer failed (exit %d); the file is %s", done.code, path),
          vim.log.levels.WARN
        )
      end
    end, 2000)
  end
end

local function write(chat, ref, path, overwrite)
  bridge.call(
    "media_save",
    { chat = chat.id, block = ref.block, index = ref.index, path = path, overwrite = overwrite or nil },
    function(err, res)
      if err and gone(chat) then
        return
      end
      if err then
        return util.notify("acpchat: not saved: " .. err, vim.log.levels.ERROR)
      end
      if res.saved then
        return util.notify(
          string.format("acpchat: saved %s (%s)", vim.fn.fnamemodify(res.path, ":~:."), text.human_size(res.size))
        )
      end
      if res.exists and not overwrite then
        vim.ui.select(
          { "Overwrite", "Cancel" },
          { prompt = vim.fn.fnamemodify(res.path, ":~:.") .. " exists. Overwrite it?" },
          function(choice)
            if choice == "Overwrite" then
              write(chat, ref, path, true)
            else
              util.notify("acpchat: not saved")
            end
          end
        )
      end
    end
  )
end

local EXT = { ["image/png"] = "png", ["image/jpeg"] = "jpg", ["audio/wav"] = "wav", ["audio/mpeg"] = "mp3" }

--- The default name offered when saving: the name on its line (an attachment's), else
--- image.<ext> / audio.<ext> from the mimeType on it.
function M.default_name(line)
  local kind, rest = line:match("%[(%a+)%] (.*)$")
  if not kind then
    return "media.bin"
  end
  -- The keys' hint at the end (a name may hold "  (" itself: "photo  (1).png").
  rest = rest:gsub("  %([^()]*%)$", "")
  local parts = vim.split(rest, " · ", { plain = true })
  if #parts >= 3 then
    return table.concat(parts, " · ", 1, #parts - 2)
  end
  local mime = parts[1] or ""
  local ext = EXT[mime] or mime:match("^%a+/x%-([%w]+)$") or mime:match("^%a+/([%w]+)$") or "bin"
  return kind .. "." .. ext
end

--- Save the clip under the cursor: asks for a path (relative to the chat's folder).
---@param chat acpchat.Chat
function M.save(chat)
  local ref = M.at_cursor(chat)
  if not ref then
    return util.notify("acpchat: no image or audio under the cursor", vim.log.levels.WARN)
  end
  local dir = chat.cwd or vim.fn.getcwd()
  local name = M.default_name(api.nvim_get_current_line())
  vim.ui.input({ prompt = "Save to: ", default = dir .. "/" .. name, completion = "file" }, function(input)
    if not input or input == "" then
      return
    end
    -- ~ and $VAR expand; nothing else does (expand() would take #, % and < for Vim's specials
    -- and glob * and [: "#1.png" was saved as the folder, "a*.png" as the names it matched).
    local path = vim.fs.normalize(input)
    if not path:match("^/") then
      -- Relative to the chat's folder, as the default offered.
      path = dir .. "/" .. path
    end
    -- A folder (its name completed with a slash, say): the clip goes in it under the name offered.
    -- A name ending in a slash is a folder even when it does not exist (not a file "shots").
    if vim.fn.isdirectory(path) == 1 then
      path = path .. "/" .. name
    elseif input:match("/%s*$") then
      return util.notify("acpchat: not saved: there is no folder " .. input, vim.log.levels.ERROR)
    end
    path = vim.fn.fnamemodify(path, ":p")
    write(chat, ref, path, false)
  end)
end

-- The extensions of the images and audio that prompts attach (src/session/attachments.ts
-- decides; this mirror only picks which files :AcpChatAdd hands to it).
local MEDIA_EXT = {}
for _, e in ipairs({
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "bmp",
  "avif",
  "wav",
  "mp3",
  "ogg",
  "oga",
  "opus",
  "flac",
  "m4a",
  "aac",
}) do
  MEDIA_EXT[e] = true
end

--- Whether :AcpChatAdd treats `path` as an image or audio file.
---@param path string
function M.is_media(path)
  local ext = path:match("%.([%w]+)$")
  return ext ~= nil and MEDIA_EXT[ext:lower()] == true
end

local function show(chat)
  prompt.show_context(chat)
end

--- :AcpChatAdd of an image or audio file: in the context at once (a prompt sent right away
--- takes it, and Node checks it again then); Node's check says what it is, or why it cannot be
--- attached (outside the session's folder, too large), and then it is taken out again.
---@param chat acpchat.Chat
---@param path string
function M.add_file(chat, path)
  local item = { type = "file", path = path }
  table.insert(chat.context, item)
  show(chat)
  bridge.call("attach", { chat = chat.id, path = path }, function(err, a)
    ---@cast a acpchat.reply.Attach
    if gone(chat) then
      return
    end
    if err then
      for i, it in ipairs(chat.context) do
        if it == item then
          table.remove(chat.context, i)
          break
        end
      end
      show(chat)
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    item.path = a.path
    item.media = a.kind and { kind = a.kind, mime = a.mime, size = a.size } or nil
    show(chat)
    util.notify("acpchat: added " .. prompt.context_label(item) .. " to the next prompt")
  end)
end

--- :AcpChatAdd + (or * for the primary selection): the image on the clipboard, read by Node
--- with wl-paste or xclip into the chat's private folder.
---@param chat acpchat.Chat
function M.add_clipboard(chat, primary)
  bridge.call("attach", { chat = chat.id, clipboard = primary and "primary" or "clipboard" }, function(err, a)
    ---@cast a acpchat.reply.Attach
    if gone(chat) then
      return
    end
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    local item =
      { type = "file", path = a.path, label = a.label, media = { kind = a.kind, mime = a.mime, size = a.size } }
    table.insert(chat.context, item)
    show(chat)
    util.notify("acpchat: added " .. prompt.context_label(item) .. " to the next prompt")
  end)
end

--- :checkhealth acpchat: images and audio (the limit, the clipboard, a viewer).
function M.health(health)
  health.start("acp-chat.nvim: images and audio")
  local opts = config.options
  health.ok("attachments up to " .. text.human_size(opts.media and opts.media.max_bytes or 0) .. " (media.max_bytes)")
  local tools = {}
  if vim.env.WAYLAND_DISPLAY and vim.env.WAYLAND_DISPLAY ~= "" and vim.fn.executable("wl-paste") == 1 then
    tools[#tools + 1] = "wl-paste (Wayland)"
  end
  if vim.env.DISPLAY and vim.env.DISPLAY ~= "" and vim.fn.executable("xclip") == 1 then
    tools[#tools + 1] = "xclip (X11)"
  end
  if #tools > 0 then
    health.ok(":AcpChatAdd + reads the clipboard's image with " .. table.concat(tools, ", "))
  else
    health.info(
      ":AcpChatAdd + (the clipboard's image) needs wl-paste with a Wayland display or xclip with an X11 display; neither is available here. Files work everywhere."
    )
  end
  local viewer
  for _, cmd in ipairs({ "xdg-open", "open", "wslview", "explorer.exe", "lemonade" }) do
    if vim.fn.executable(cmd) == 1 then
      viewer = cmd
      break
    end
  end
  if viewer then
    health.ok("gx opens images and audio with vim.ui.open (" .. viewer .. ")")
  else
    health.warn(
      "no opener for vim.ui.open found (xdg-open, open, wslview, ...): gx cannot open images or audio here; gS saves them"
    )
  end
end

return M
