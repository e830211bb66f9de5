-- The agent's view of the user's files: buffers (with unsaved changes) before the disk.
-- Called from Node with nvim_exec_lua; only the requested lines cross the RPC boundary.
local M = {}
local api = vim.api

--- The loaded buffer for an absolute path, if any.
function M.find_buf(path)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" then
      local name = api.nvim_buf_get_name(b)
      if name == path or (name ~= "" and vim.uv.fs_realpath(name) == path) then
        return b
      end
    end
  end
end

--- fs/read_text_file: `line` 1-based, `limit` a count of lines (0: not given).
function M.read(path, line, limit)
  local b = M.find_buf(path)
  if not b then
    return { loaded = false }
  end
  local first = (line and line > 0) and (line - 1) or 0
  local last = (limit and limit > 0) and (first + limit) or -1
  local lines = api.nvim_buf_get_lines(b, first, last, false)
  local content = table.concat(lines, "\n")
  -- A whole-file read ends with a newline like the file on disk would.
  if last == -1 and vim.bo[b].eol and #lines > 0 then
    content = content .. "\n"
  end
  return { loaded = true, content = content }
end

--- Replace a buffer's text with `content` as one undoable change, keeping the cursor.
function M.apply_to_buffer(b, content)
  local lines = vim.split(content, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  local views = {}
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    views[w] = api.nvim_win_call(w, vim.fn.winsaveview)
  end
  -- Only the changed middle is replaced: marks and the undo step stay small.
  local old = api.nvim_buf_get_lines(b, 0, -1, false)
  local s = 1
  while s <= #old and s <= #lines and old[s] == lines[s] do
    s = s + 1
  end
  local eo, en = #old, #lines
  while eo >= s and en >= s and old[eo] == lines[en] do
    eo, en = eo - 1, en - 1
  end
  api.nvim_buf_set_lines(b, s - 1, eo, false, vim.list_slice(lines, s, en))
  for w, view in pairs(views) do
    if api.nvim_win_is_valid(w) then
      view.lnum = math.min(view.lnum, math.max(1, api.nvim_buf_line_count(b)))
      api.nvim_win_call(w, function()
        vim.fn.winrestview(view)
      end)
    end
  end
end

--- What a write would replace: the buffer's text when the file is loaded.
--- Returns { loaded, modified, text, tick } (text only when loaded).
function M.current(path)
  local b = M.find_buf(path)
  if not b then
    return { loaded = false }
  end
  local lines = api.nvim_buf_get_lines(b, 0, -1, false)
  local text = table.concat(lines, "\n")
  if vim.bo[b].eol and #lines > 0 then
    text = text .. "\n"
  end
  return { loaded = true, modified = vim.bo[b].modified, text = text, tick = api.nvim_buf_get_changedtick(b) }
end

--- Put `content` into the loaded buffer for `path` as one undoable change (and :write it when
--- `save`). `tick`: the changedtick the content was based on; if the user typed since, nothing
--- is applied. Returns { result = "applied" | "not_loaded" | "changed" }.
function M.apply(path, content, save, tick)
  local b = M.find_buf(path)
  if not b then
    return { result = "not_loaded" }
  end
  if tick and tick > 0 and api.nvim_buf_get_changedtick(b) ~= tick then
    return { result = "changed" }
  end
  M.apply_to_buffer(b, content)
  if save then
    api.nvim_buf_call(b, function()
      vim.cmd("silent write")
    end)
  end
  return { result = "applied" }
end

--- After a disk write: windows showing the file reload it.
function M.reload(path)
  local b = M.find_buf(path)
  if b and not vim.bo[b].modified then
    api.nvim_buf_call(b, function()
      vim.cmd("silent! checktime")
      vim.cmd("silent! edit")
    end)
  end
end

return M
