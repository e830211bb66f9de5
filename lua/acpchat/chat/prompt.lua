-- The prompt buffer: what the user types, the hint while it is empty, the context waiting for the
-- next prompt, and prompts given back (cancelled from the queue, or not sent because the agent
-- crashed). Its text is cleared only once Node took it.
local config = require("acpchat.config")
local text = require("acpchat.transcript.text")

local api = vim.api
local M = {}

local ns_hint = api.nvim_create_namespace("acpchat_prompt_hint")

function M.context_label(item)
  local name = item.label or vim.fn.fnamemodify(item.path, ":~:.")
  if item.media then
    -- An image or audio file: its type and size too (lua/acpchat/chat/media.lua).
    return string.format("%s (%s, %s)", name, item.media.mime, text.human_size(item.media.size))
  end
  return item.type == "range" and string.format("%s:%d-%d", name, item.start, item["end"]) or name
end

--- The prompt window's winbar lists the prompts waiting to be sent (drawn below the transcript
--- too, where a long one scrolls them out of sight) and the context waiting for the next one.
---@param chat acpchat.Chat
function M.show_context(chat)
  local parts = {}
  local queued = chat.status and chat.status.queued or {}
  if #queued > 0 then
    local first = text.flat(vim.split(queued[1].text or "", "\n", { plain = true })[1], 40)
    parts[#parts + 1] = string.format("⏳ %d queued (next: %s)", #queued, first)
    if chat.status.waiting then
      -- Not the agent: the folder's first snapshot, which a turn must not start before.
      parts[#parts + 1] = "waiting for " .. chat.status.waiting
    end
  end
  if #chat.context > 0 then
    parts[#parts + 1] = "context: " .. table.concat(vim.tbl_map(M.context_label, chat.context), ", ")
  end
  local bar = table.concat(parts, " · "):gsub("%%", "%%%%")
  for _, w in ipairs(vim.fn.win_findbuf(chat.prompt_buf)) do
    local wbar = bar
    if chat.refused then
      -- Where the user looks while typing: a refused prompt says why here (it stays in the
      -- prompt), its start first however narrow the window.
      local why = text.flat("✗ not sent: " .. chat.refused, 300)
      local room = api.nvim_win_get_width(w) - 1
      if vim.fn.strdisplaywidth(why) > room then
        why = vim.fn.strcharpart(why, 0, room - 1) .. "…"
      end
      wbar = "%#ErrorMsg#" .. why:gsub("%%", "%%%%") .. "%*" .. (bar ~= "" and (" · %<" .. bar) or "")
    end
    vim.wo[w].winbar = wbar
  end
end

--- The prompt was not sent (`why`): the prompt's winbar says so until the user edits the prompt
--- or sends again.
---@param chat acpchat.Chat
---@param why string?
function M.refuse(chat, why)
  chat.refused = why
  M.show_context(chat)
  if why and api.nvim_buf_is_valid(chat.prompt_buf) then
    api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
      buffer = chat.prompt_buf,
      once = true,
      callback = function()
        if chat.refused == why then
          M.refuse(chat, nil)
        end
      end,
    })
  end
end

--- A hint in the empty prompt: who is listening and which keys do what.
---@param chat acpchat.Chat
function M.placeholder(chat)
  if not api.nvim_buf_is_valid(chat.prompt_buf) then
    return
  end
  api.nvim_buf_clear_namespace(chat.prompt_buf, ns_hint, 0, -1)
  local lines = api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false)
  if #lines > 1 or (lines[1] or "") ~= "" then
    return
  end
  local k = config.options.keymaps
  local hint = string.format(
    "Ask %s…  %s send · %s cancel · @ file · / command",
    chat.agent,
    k.send_insert or k.send or "",
    k.cancel or ""
  )
  api.nvim_buf_set_extmark(
    chat.prompt_buf,
    ns_hint,
    0,
    0,
    { virt_text = { { hint, "Comment" } }, virt_text_pos = "overlay" }
  )
end

--- The prompt's text (trimmed), or nil when empty.
---@param chat acpchat.Chat
function M.text(chat)
  local typed = vim.trim(table.concat(api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false), "\n"))
  return typed ~= "" and typed or nil
end

--- Node took `sent`: remove it from the prompt, keeping anything typed since.
---@param chat acpchat.Chat
function M.clear_sent(chat, sent)
  if not api.nvim_buf_is_valid(chat.prompt_buf) then
    return
  end
  local now = table.concat(api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false), "\n")
  local rest
  local trimmed = vim.trim(now)
  if trimmed == sent then
    rest = ""
  elseif vim.startswith(trimmed, sent) then
    rest = vim.trim(trimmed:sub(#sent + 1))
  else
    return -- changed beyond recognition: leave it, nothing is lost
  end
  api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, rest == "" and {} or vim.split(rest, "\n", { plain = true }))
  M.placeholder(chat)
end

--- Prompts given back: their text goes to the top of the prompt (above what is there), their
--- context back to the next prompt's.
---@param chat acpchat.Chat
---@param prompts { text: string, context?: acpchat.wire.ContextItem[] }[] acpchat.wire.TakenBack[], or the status's queued prompts
function M.take_back(chat, prompts)
  if #prompts == 0 or not api.nvim_buf_is_valid(chat.prompt_buf) then
    return
  end
  local lines = {}
  for _, p in ipairs(prompts) do
    vim.list_extend(lines, vim.split(p.text, "\n", { plain = true }))
    for _, item in ipairs(p.context or {}) do
      -- What a mention brought is read again from the prompt's text when it is sent.
      if not item.mention then
        table.insert(chat.context, item)
      end
    end
  end
  local old = api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false)
  if #old > 1 or (old[1] or "") ~= "" then
    vim.list_extend(lines, old)
  end
  api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, lines)
  M.placeholder(chat)
  M.show_context(chat)
end

return M
