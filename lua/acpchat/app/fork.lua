-- :AcpChatFork (src/session/features/fork.ts; on with |acpchat-unstable|): a new chat whose
-- session is a fork of the current chat's (session/fork). The fork runs in an agent process of its own,
-- like every chat; what the source chat showed is kept above it, marked as such.
local api = vim.api
local bridge = require("acpchat.host.bridge")
local features = require("acpchat.transcript.features")
local registry = require("acpchat.chat.registry")
local util = require("acpchat.util")
local text = require("acpchat.transcript.text")
local layout = require("acpchat.chat.layout")
local chats = require("acpchat.app.chats")

local M = {}

--- Lines that introduce a fork's transcript (what the forked chat showed, kept for reading).
M.fork_header = "── forked from %s: the conversation so far, as that chat showed it ──"
M.fork_footer = "── the fork starts here ──"

--- :AcpChatFork: a new chat whose session is a fork of this chat's (session/fork).
function M.fork()
  local c = registry.need()
  if not c then
    return
  end
  -- Node gates the fork feature too (src/session/features/fork.ts); said here at once, unstable
  -- as it is (the module's one mention of the option).
  if not features.option() then
    return util.notify(
      "acpchat: :AcpChatFork needs `unstable = true` in setup() (session/fork is an unstable ACP method; :help acpchat-unstable)",
      vim.log.levels.WARN
    )
  end
  bridge.call("fork_source", { chat = c.id }, function(err, res)
    ---@cast res acpchat.reply.ForkSource
    if err then
      return util.notify("acpchat: cannot fork: " .. err, vim.log.levels.WARN)
    end
    local new = chats.create(c.agent, { fork = res.session_id })
    if not new then
      return
    end
    -- What the source chat showed, above the fork's own turns (the agent has it as context).
    local lines = api.nvim_buf_is_valid(c.buf) and api.nvim_buf_get_lines(c.buf, 0, -1, false) or {}
    -- The title is the agent's (session_info_update): one line, or set_lines raises on a line
    -- break and the fork is left half made.
    local name = text.flat(res.title and res.title ~= "" and res.title or res.session_id, 200)
    local out = vim.list_extend({ string.format(M.fork_header, name) }, lines)
    out[#out + 1] = M.fork_footer
    vim.bo[new.buf].modifiable = true
    api.nvim_buf_set_lines(new.buf, 0, -1, false, out)
    local ns = api.nvim_create_namespace("acpchat_fork")
    for _, row in ipairs({ 0, #out - 1 }) do
      api.nvim_buf_set_extmark(new.buf, ns, row, 0, { line_hl_group = "AcpChatNote" })
    end
    vim.bo[new.buf].modifiable = false
    vim.bo[new.buf].modified = false
    layout.show(new)
    util.notify("acpchat: forked " .. name .. " into a new chat")
  end)
end

return M
