-- Lua's side of the contract with the Node host (src/nvim/contract.ts; names in
-- lua/acpchat/host/contract.lua, generated from it):
--   * Lua never waits on Node. Calls are RPC notifications; a call that wants an answer passes a
--     callback, run when the `result` event comes back (like vim.lsp's requests).
--   * Node's events (render batches, questions, results) arrive through M.receive; its buffer
--     requests through M.answer, which answer at once and never wait on the user.
--   * Keys are snake_case on the wire and values never vim.NIL (Node drops nulls).
-- The host is this plugin's own `node` process, started in the background on first use: the
-- editor never waits for it to start either (calls made meanwhile wait in its pipe).
local contract = require("acpchat.host.contract")
local notify = require("acpchat.notify")

local M = {}

-- The plugin's root: this file is lua/acpchat/host/bridge.lua.
M.root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h:h")
M.rplugin = M.root .. "/rplugin/node/acpchat"
-- The node client's host, bundled with a light logger in place of winston (src/nvim/host-main.ts).
M.cli = M.root .. "/dist/host.cjs"
M.bundle = M.root .. "/dist/acpchat.cjs"

local allowed = {}
for _, m in ipairs(contract.calls) do
  allowed[m] = true
end
local method_name = M.rplugin .. ":function:" .. contract.notify_function

---@type integer?
M.channel = nil
--- Sees every call as it goes out (events.lua: answers to questions, for the attention counts).
---@type fun(method: string, params: table?)?
M.on_call = nil
--- Bumped each time a host starts: chats opened in an earlier host must be opened again.
M.generation = 0
local callbacks = {}
local next_ref = 1
-- Chat ids live as long as this module, so as long as the host's channel: Node keys its chats
-- by them and may still send events for a closed one. A registry loaded again (the rest of the
-- plugin reloaded) must not hand out an id an earlier chat of this host had.
local last_chat_id = 0

--- A chat id never used with this host.
---@return integer
function M.new_chat_id()
  last_chat_id = last_chat_id + 1
  return last_chat_id
end

local function report(msg, level)
  notify.notify(msg, level or vim.log.levels.ERROR)
end

--- The host's command line. `env -u` keeps the editor's RPC address ($NVIM, which Neovim sets
--- for every job) from the host and so from every agent and terminal it starts.
function M.command()
  local node = vim.g.acpchat_node or vim.fn.exepath("node")
  if node == "" then
    return nil, "`node` is not on PATH (acp-chat.nvim needs Node.js 20 or newer)"
  end
  if not vim.uv.fs_stat(M.cli) or not vim.uv.fs_stat(M.bundle) then
    return nil, "the plugin is not built: run `npm ci && npm run build` in " .. M.root
  end
  local cmd = { node, M.cli }
  if vim.fn.executable("env") == 1 then
    cmd = vim.list_extend({ "env", "-u", "NVIM", "-u", "NVIM_LISTEN_ADDRESS" }, cmd)
  end
  return cmd
end

--- Start the host if it is not running. Returns the channel, or nil after telling the user why.
---@return integer? channel
function M.start()
  if M.channel then
    return M.channel
  end
  local cmd, err = M.command()
  if not cmd then
    report("acpchat: " .. err)
    return nil
  end
  local stderr = {}
  local ok, chan = pcall(vim.fn.jobstart, cmd, {
    rpc = true,
    -- The node client logs at "debug" unless told otherwise: it then copies every answer from
    -- Neovim for a log line nobody reads (a whole buffer's lines on each read). Kept when set.
    -- ACPCHAT_CACHE_DIR: where the host keeps a V8 code cache of its bundle when the one `npm run
    -- build` wrote does not fit its Node (src/nvim/code-cache.ts).
    env = {
      NVIM_NODE_LOG_LEVEL = vim.env.NVIM_NODE_LOG_LEVEL or "info",
      ACPCHAT_CACHE_DIR = vim.fn.stdpath("cache") .. "/acpchat",
    },
    on_stderr = function(_, data)
      for _, l in ipairs(data or {}) do
        if l ~= "" then
          stderr[#stderr + 1] = l
          if #stderr > 20 then
            table.remove(stderr, 1)
          end
        end
      end
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        M.on_host_exit(code, stderr)
      end)
    end,
  })
  if not ok or chan <= 0 then
    report("acpchat: could not start the Node host: " .. tostring(chan))
    return nil
  end
  M.channel = chan
  M.generation = M.generation + 1
  return chan
end

--- The host is gone: pending calls fail, every chat of it shows as crashed.
---@param code integer
---@param stderr string[]
function M.on_host_exit(code, stderr)
  M.channel = nil
  require("acpchat.host.text_pipe").close()
  local pending = callbacks
  callbacks = {}
  local why = string.format(
    "the plugin's Node host exited (code %s)%s",
    tostring(code),
    #stderr > 0 and (": " .. stderr[#stderr]) or ""
  )
  for _, cb in pairs(pending) do
    pcall(cb, why, nil)
  end
  if M.on_exit and (vim.v.exiting == nil or vim.v.exiting == vim.NIL) then
    M.on_exit(why)
  end
end

--- Call `method` on Node. `cb(err, result)`, if given, runs when the answer arrives; without
--- one, a failure is shown to the user by Node. Never waits.
---@param method string a name from contract.calls
---@param params table?
---@param cb fun(err: string?, result: any)?
function M.call(method, params, cb)
  assert(allowed[method], "acpchat: not a contract method: " .. tostring(method))
  if M.on_call then
    M.on_call(method, params)
  end
  -- These only make sense to the host that asked or holds the chat: never start one for them.
  if
    not M.channel
    and (method == "reply" or method == "close" or method == "shutdown" or method == "log" or method == "cancel")
  then
    if cb then
      cb("the Node host is not running", nil)
    end
    return false
  end
  local chan = M.start()
  if not chan then
    if cb then
      cb("the Node host is not running", nil)
    end
    return false
  end
  local ref
  if cb then
    ref = next_ref
    next_ref = next_ref + 1
    callbacks[ref] = cb
  end
  local ok, err = pcall(vim.rpcnotify, chan, method_name, { method, params or vim.empty_dict(), ref })
  if not ok then
    callbacks[ref or -1] = nil
    if cb then
      cb(tostring(err), nil)
    else
      report("acpchat: " .. tostring(err))
    end
    return false
  end
  return true
end

--- For :checkhealth and tests only: call and wait up to `ms` for the answer. Blocks the editor
--- (like vim.lsp's *_sync helpers); never used on a path the user drives.
---@param method string
---@param params table
---@param ms integer
---@return any result
---@return string? err
function M.call_sync(method, params, ms)
  local done, e, r = false, nil, nil
  M.call(method, params, function(err, res)
    done, e, r = true, err, res
  end)
  vim.wait(ms or 5000, function()
    return done
  end, 5)
  if not done then
    error("acpchat: no answer to " .. method .. " within " .. tostring(ms or 5000) .. " ms", 0)
  end
  if e then
    error(e, 0)
  end
  return r
end

--- Events whose handlers live elsewhere (events.lua registers them: the bridge depends on
--- nothing of the plugin's, so no module that calls Node is required from here).
---@type table<string, fun(payload: table)>
M.handlers = {}
---@type fun(why: string)?
M.on_exit = nil

-- The answers to calls; the other events come from M.handlers.
local events = {
  ---@param p acpchat.event.Result
  result = function(p)
    local cb = callbacks[p.ref]
    callbacks[p.ref] = nil
    if cb then
      if p.ok then
        cb(nil, p.value)
      else
        cb(p.error or "failed", nil)
      end
    end
  end,
}

--- Node -> Lua buffer requests: they answer at once.
---@type table<string, fun(params: table): table>
M.requests = {}

--- Entry point of every Node event (nvim_exec_lua notification).
---@param event string an event of the contract (contract.events)
---@param payload table
function M.receive(event, payload)
  local handler = events[event] or M.handlers[event]
  if not handler then
    return report("acpchat: unknown event from Node: " .. tostring(event))
  end
  local ok, err = xpcall(handler, debug.traceback, payload)
  if not ok then
    M.fail(string.format("%s failed", event), err, payload and payload.chat)
  end
end

--- One line for the user; the details (a traceback) go to the chat's trace (:AcpChatLog).
---@param what string
---@param err any
---@param chat_id integer?
function M.fail(what, err, chat_id)
  local first = tostring(err):match("^[^\n]*"):gsub("^.-:%d+: ", "")
  report(string.format("acpchat: %s: %s (details: :AcpChatLog)", what, first))
  if M.channel then
    M.call("log", { chat = chat_id, message = what .. ": " .. first, details = tostring(err) })
  end
end

--- Entry point of Node's buffer requests (nvim_exec_lua request); errors go back to Node.
---@param method string a buffer request (contract.requests)
---@param params table
---@return any
function M.answer(method, params)
  local handler = M.requests[method]
  if not handler then
    error("unknown request " .. tostring(method))
  end
  return handler(params)
end

--- Bytes of a slice that cross as one text: a big slice's Lua strings (its lines, then the joined
--- text) hold the editor, and over RPC the node client's decoder once copied a long string again
--- with each read (2 MB took it 200 ms, 15 MB 12 s; src/nvim/msgpack-append.ts). Bigger slices go
--- as lines, serialized straight from the buffer.
local MAX_TEXT = 512 * 1024

--- Lines [first, last) of buffer `buf` joined with "\n", if it is still at change tick `tick`
--- (nil when it changed or went away; true when a line holds a NUL byte: a binary file, which
--- reads refuse; false when the slice is over MAX_TEXT bytes: read it as lines).
--- `number_from`: each line numbered like the agents' own read tools (`%6d\t`), the first as
--- `number_from` (a few percent more than the join; in Node it cost a read's whole time
--- again). One string crosses to Node, not one per line: Node decodes each short string in
--- JavaScript, which cost more than the read.
---@param buf integer
---@param tick integer
---@param first integer
---@param last integer
--- `frame`: the host's id for this slice on its text pipe (text_pipe.lua): when the pipe is
--- open, the text goes there and the answer is its length in bytes.
---@param number_from integer?
---@param frame integer?
---@return string|boolean|integer|nil
function M.buffer_text(buf, tick, first, last, number_from, frame)
  -- Node sends nil for an argument it leaves out (positional: a frame without numbering).
  number_from = number_from ~= vim.NIL and number_from or nil
  frame = frame ~= vim.NIL and frame or nil
  local ok, now = pcall(vim.api.nvim_buf_get_changedtick, buf)
  if not ok or now ~= tick or not vim.api.nvim_buf_is_loaded(buf) then
    return nil
  end
  if vim.api.nvim_buf_get_offset(buf, last) - vim.api.nvim_buf_get_offset(buf, first) > MAX_TEXT then
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(buf, first, last, false)
  for i = 1, #lines do
    if lines[i]:find("\0", 1, true) or lines[i]:find("\n", 1, true) then
      return true
    end
  end
  if number_from then
    for i = 1, #lines do
      lines[i] = ("%6d\t%s"):format(number_from + i - 1, lines[i])
    end
  end
  local text = table.concat(lines, "\n")
  if frame and require("acpchat.host.text_pipe").send(frame, text) then
    return #text
  end
  return text
end

return M
