-- The host's text pipe (src/nvim/text-pipe.ts): a Unix socket beside the RPC channel that
-- buffer texts cross as raw bytes. Over RPC a large string is msgpack on both ends, written by
-- Neovim in pieces of a few KB and decoded by Node one read at a time; here it is one write.
-- The host asks for it (connect), the first line proves its token, then each text goes as
-- `<id> <bytes>\n<text>`. Closed or failed, texts go over RPC again (send returns false).
local M = {}

---@type uv.uv_pipe_t?
local pipe = nil
local ready = false
--- Frames queued on the pipe so far (tests check that texts really go this way).
M.sent = 0

local function close()
  ready = false
  if pipe and not pipe:is_closing() then
    pipe:close()
  end
  pipe = nil
end

--- Connect to the host's socket at `path`; texts go there once the token is written.
---@param path string
---@param token string
function M.connect(path, token)
  close()
  local p = vim.uv.new_pipe(false)
  if not p then
    return
  end
  pipe = p
  p:connect(path, function(err)
    if err or pipe ~= p then
      if pipe == p then
        close()
      end
      return
    end
    p:write(token .. "\n", function(werr)
      if werr and pipe == p then
        close()
      end
    end)
    -- The host never writes here: what comes is its end closing (it exited or gave the pipe up).
    p:read_start(function(rerr, data)
      if (rerr or not data) and pipe == p then
        close()
      end
    end)
    ready = true
  end)
end

--- Queue `text` as frame `id`; false when the pipe is not open (the caller answers over RPC).
---@param id integer
---@param text string
---@return boolean
function M.send(id, text)
  if not ready or not pipe then
    return false
  end
  local p = pipe
  -- luv returns nil (not an error) when the write cannot be queued.
  local ok, req = pcall(p.write, p, { ("%d %d\n"):format(id, #text), text }, function(err)
    if err and pipe == p then
      close()
    end
  end)
  if not ok or not req then
    close()
    return false
  end
  M.sent = M.sent + 1
  return true
end

--- Whether texts go on the pipe (tests check it).
function M.is_open()
  return ready
end

M.close = close

return M
