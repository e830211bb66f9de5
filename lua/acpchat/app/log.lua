-- :AcpChatLog [filter]: the JSON-RPC trace of the current chat, one entry a line with its
-- payload folded below it. Secrets were redacted before they were recorded.
local bridge = require("acpchat.host.bridge")
local util = require("acpchat.util")
local registry = require("acpchat.chat.registry")

local M = {}

local arrow = { ["in"] = "←", out = "→", note = "·" }

--- Lines for trace entries: a header line, then the payload (indented, so it folds).
function M.lines(entries)
  local out = {}
  for _, e in ipairs(entries) do
    local time = (e.time or ""):match("T([%d:%.]+)") or e.time or ""
    local id = e.id ~= nil and ("#" .. tostring(e.id) .. " ") or ""
    local what = e.method or e.kind or ""
    if e.kind == "error" then
      what = what .. " (error)"
    elseif e.kind == "response" then
      what = what .. " (response)"
    elseif e.dir == "note" then
      what = "[" .. tostring(e.kind) .. "]"
    elseif e.kind == "notifications" then
      -- Text chunks read together, one entry: how many (their texts are in the payload).
      what = what .. " ×" .. ((e.payload_json or ""):match('^{"count":(%d+)') or "?")
    end
    out[#out + 1] = string.format("%s %s %s%s %dB", time, arrow[e.dir] or "?", id, what, e.size or 0)
    -- A note's payload is a JSON string: show its text.
    local payload = e.payload_json or ""
    if payload:sub(1, 1) == '"' then
      local ok, str = pcall(vim.json.decode, payload)
      payload = ok and str or payload
    end
    for _, l in ipairs(vim.split(payload, "\n", { plain = true })) do
      out[#out + 1] = "    " .. l
    end
  end
  return out
end

--- The chat of the log buffer in use (so that :AcpChatLog {filter} works in the log's tab), or
--- of the current tab.
local function chat_for_log()
  local id = vim.b.acpchat_chat
  return (id and registry.get(id)) or registry.need()
end

function M.open(filter)
  local c = chat_for_log()
  if not c then
    return
  end
  bridge.call("trace", { chat = c.id, filter = filter ~= "" and filter or nil }, function(err, entries)
    ---@cast entries acpchat.reply.Trace
    if err then
      return util.notify("acpchat: " .. err, vim.log.levels.ERROR)
    end
    M.show(c, entries)
  end)
end

function M.show(c, entries)
  local name = string.format("acpchat://%d/log", c.id)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].filetype = "acpchat-log"
    vim.b[buf].acpchat_chat = c.id
    vim.keymap.set(
      "n",
      "q",
      "<Cmd>close<CR>",
      { buffer = buf, nowait = true, silent = true, desc = "acpchat: close the log" }
    )
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.lines(entries))
  vim.bo[buf].modifiable = false
  local wins = vim.fn.win_findbuf(buf)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd("tab sbuffer " .. buf)
  end
  vim.wo.foldmethod = "indent"
  vim.wo.foldlevel = 0
  vim.wo.wrap = false
end

return M
