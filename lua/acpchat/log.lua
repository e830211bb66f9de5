-- :AcpChatLog [filter]: the JSON-RPC trace of the current chat, one entry a line with its
-- payload folded below it. Secrets were redacted before they were recorded.
local rpc = require("acpchat.rpc")
local util = require("acpchat.util")

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
    end
    out[#out + 1] = string.format("%s %s %s%s %dB", time, arrow[e.dir] or "?", id, what, e.size or 0)
    local payload = type(e.payload) == "string" and e.payload or vim.json.encode(e.payload)
    for _, l in ipairs(vim.split(payload, "\n", { plain = true })) do
      out[#out + 1] = "    " .. l
    end
  end
  return out
end

function M.open(filter)
  local c = require("acpchat.chat").need()
  if not c then
    return
  end
  local ok, entries = pcall(rpc.request, "trace", { id = c.id, filter = filter ~= "" and filter or nil })
  if not ok then
    return util.notify(tostring(entries), vim.log.levels.ERROR)
  end
  local name = string.format("acpchat://%d/log", c.id)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].filetype = "acpchat-log"
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.lines(entries))
  vim.bo[buf].modifiable = false
  vim.cmd("tab sbuffer " .. buf)
  vim.wo.foldmethod = "indent"
  vim.wo.foldlevel = 0
  vim.wo.wrap = false
end

return M
