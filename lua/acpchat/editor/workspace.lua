-- The editor's primitives for the agent's reads and writes (Node's buffer requests, see
-- src/nvim/contract.ts): report a buffer's state, apply line edits as one undo step, save,
-- reload. They answer at once and decide nothing: what a write does is decided in Node
-- (src/workspace/write-plan.ts).
local M = {}
local api = vim.api

--- The loaded buffer for an absolute path, if any (with `unloaded`, also one not loaded).
---@param path string
function M.find_buf(path, unloaded)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if (unloaded or api.nvim_buf_is_loaded(b)) and vim.bo[b].buftype == "" then
      local name = api.nvim_buf_get_name(b)
      if name == path or (name ~= "" and vim.uv.fs_realpath(name) == path) then
        return b
      end
    end
  end
end

--- Vim's empty buffer (no line at all, shown as one empty line).
local function is_empty(b)
  return api.nvim_buf_line_count(b) == 1 and api.nvim_buf_call(b, function()
    return vim.fn.line2byte(2) == -1
  end)
end

--- A buffer's state: its options that decide how it is written, its change tick, and its
--- lines [first, last) (0-based, end exclusive; all by default).
---@param p acpchat.request.BufferState
---@return acpchat.response.BufferState
function M.state(p)
  local b = M.find_buf(p.path)
  if not b then
    return { loaded = false }
  end
  local bo = vim.bo[b]
  local first = p.first or 0
  local last = p.last or -1
  local count = api.nvim_buf_line_count(b)
  if last ~= -1 and last > count then
    last = count
  end
  local lines = first >= count and {} or api.nvim_buf_get_lines(b, first, last, false)
  local disk_changed
  if p.probe_disk then
    -- The buffer stays as it is; Vim will not warn about this change again (W12): the caller
    -- shows the user the difference instead.
    disk_changed = M.checktime(b, "")
  end
  return {
    disk_changed = disk_changed,
    loaded = true,
    buf = b,
    tick = api.nvim_buf_get_changedtick(b),
    modified = bo.modified,
    lines = lines,
    line_count = count,
    empty = is_empty(b),
    eol = bo.eol,
    fixeol = bo.fixeol,
    binary = bo.binary,
    fileformat = bo.fileformat,
    fileencoding = bo.fileencoding,
    bomb = bo.bomb,
    readonly = bo.readonly,
    modifiable = bo.modifiable,
  }
end

--- Close the buffer's current undo block, even in Insert mode (:h undo-break).
local function break_undo(b)
  api.nvim_buf_call(b, function()
    vim.cmd("let &g:undolevels = &g:undolevels")
  end)
end

--- The loaded buffer for `p.path` if it is still at change tick `p.tick`; else the answer why not.
local function at_tick(p)
  local b = M.find_buf(p.path)
  if not b then
    return nil, { result = "not_loaded" }
  end
  if api.nvim_buf_get_changedtick(b) ~= p.tick then
    return nil, { result = "changed" }
  end
  return b
end

--- The buffer's undo state: changenr() is undotree()'s seq_cur (both b_u_seq_cur), without
--- building the tree (milliseconds for a long history, on every change).
local function undo_seq(b)
  return api.nvim_buf_call(b, function()
    return vim.fn.changenr()
  end)
end

--- Writes that changed a buffer's 'endofline'/'fixendofline', per buffer: { seq (the undo
--- state right after the write), before, after }, oldest first.
local eol_writes = {}

local function set_eol(b, o)
  if vim.bo[b].eol ~= o.eol then
    vim.bo[b].eol = o.eol
  end
  if vim.bo[b].fixeol ~= o.fixeol then
    vim.bo[b].fixeol = o.fixeol
  end
end

--- Undoing an agent's write gives the buffer its 'endofline'/'fixendofline' back (undo does
--- not restore options: the buffer stayed modified, and :w dropped the final newline); redoing
--- it sets the write's again. A buffer back at its saved text is then unmodified again.
local function watch_undo(b, w)
  local list = eol_writes[b]
  if not list then
    list = {}
    eol_writes[b] = list
    local group = api.nvim_create_augroup("AcpChatEol" .. b, { clear = true })
    -- Undo and redo happen in Normal mode (TextChanged); not on every typed key (TextChangedI).
    api.nvim_create_autocmd("TextChanged", {
      group = group,
      buffer = b,
      callback = function()
        local seq = undo_seq(b)
        -- The oldest write the buffer is before (undone), else the newest if it is right at it.
        for _, x in ipairs(list) do
          if seq < x.seq then
            return set_eol(b, x.before)
          end
        end
        local last = list[#list]
        if last and seq == last.seq then
          set_eol(b, last.after)
        end
      end,
    })
    api.nvim_create_autocmd("BufWipeout", {
      group = group,
      buffer = b,
      once = true,
      callback = function()
        eol_writes[b] = nil
        pcall(api.nvim_del_augroup_by_id, group)
      end,
    })
  end
  table.insert(list, w)
end

--- Line edits (0-based, end exclusive, bottom first) that turn `from` into `to`.
local function line_edits(from, to)
  local a = #from > 0 and table.concat(from, "\n") .. "\n" or ""
  local z = #to > 0 and table.concat(to, "\n") .. "\n" or ""
  local edits = {}
  -- vim.text.diff is its name from Neovim 0.11 on; 0.10 is supported.
  ---@diagnostic disable-next-line: deprecated, param-type-mismatch
  for _, h in ipairs(vim.diff(a, z, { result_type = "indices" })) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    local first = ca == 0 and sa or sa - 1
    local from_b = cb == 0 and sb or sb - 1
    table.insert(edits, 1, { start = first, ["end"] = first + ca, lines = vim.list_slice(to, from_b + 1, from_b + cb) })
  end
  return edits
end

--- After the user compared their buffer with the file an agent changed on disk: the buffer
--- reads the file again (so Vim knows the file as it is now: no W12, and no "changed since
--- reading it" question on the next :w), then gets the text the user chose back as one undo
--- step of its own (`u` goes to the file's text, once more to the buffer before). A text
--- equal to the file leaves the buffer unmodified.
---@param p { edits: { start: integer, ["end"]: integer, lines: string[] }[], eol: boolean? }
local function adopt_disk(b, p)
  local want = api.nvim_buf_get_lines(b, 0, -1, false)
  for _, e in ipairs(p.edits or {}) do
    local tail = vim.list_slice(want, e["end"] + 1)
    want = vim.list_extend(vim.list_extend(vim.list_slice(want, 1, e.start), e.lines or {}), tail)
  end
  local eol, fixeol = vim.bo[b].eol, vim.bo[b].fixeol
  local want_eol = p.eol
  if want_eol ~= nil then
    eol, fixeol = want_eol, want_eol and fixeol or false
  end
  break_undo(b)
  local ok = pcall(api.nvim_buf_call, b, function()
    vim.cmd("silent edit!")
  end)
  if not ok then
    -- The file cannot be read again: keep the chosen text, Vim's check stays as it was.
    M.checktime(b, "")
  end
  break_undo(b)
  for _, e in ipairs(line_edits(api.nvim_buf_get_lines(b, 0, -1, false), want)) do
    api.nvim_buf_set_lines(b, e.start, e["end"], false, e.lines)
  end
  if vim.bo[b].eol ~= eol then
    vim.bo[b].eol = eol
  end
  if vim.bo[b].fixeol ~= fixeol then
    vim.bo[b].fixeol = fixeol
  end
  break_undo(b)
  return { result = "applied", tick = api.nvim_buf_get_changedtick(b) }
end

--- Apply line edits (each { start, end, lines }: old lines [start, end), bottom first, as Node
--- computed them) as one undo step of their own, if the buffer is still at change tick `tick`.
--- `eol`: set 'endofline' (and, when false, 'nofixendofline'). Cursors and marks in every
--- window move with the lines around them (set_lines adjusts them).
---@param p acpchat.request.BufferApply
---@return acpchat.response.BufferApply
function M.apply(p)
  local b, why = at_tick(p)
  if not b then
    return why
  end
  if p.acknowledge_disk then
    return adopt_disk(b, p)
  end
  break_undo(b)
  local before = { eol = vim.bo[b].eol, fixeol = vim.bo[b].fixeol }
  local seq_before = undo_seq(b)
  for _, e in ipairs(p.edits or {}) do
    api.nvim_buf_set_lines(b, e.start, e["end"], false, e.lines or {})
  end
  if p.eol ~= nil then
    vim.bo[b].eol = p.eol
    if not p.eol then
      vim.bo[b].fixeol = false
    end
  end
  break_undo(b)
  local after = { eol = vim.bo[b].eol, fixeol = vim.bo[b].fixeol }
  local seq_after = undo_seq(b)
  if seq_after > seq_before and (after.eol ~= before.eol or after.fixeol ~= before.fixeol) then
    watch_undo(b, { seq = seq_after, before = before, after = after })
  end
  if p.mark_saved then
    vim.bo[b].modified = false
  end
  return { result = "applied", tick = api.nvim_buf_get_changedtick(b) }
end

--- :checktime for one buffer, answering Vim's question about a file changed on disk with
--- `choice` (v:fcs_choice: "reload", or "" to keep the buffer and stop the warning, W12).
--- Returns whether Vim saw the file change since it read or wrote it.
function M.checktime(b, choice)
  local changed = false
  local id = api.nvim_create_autocmd("FileChangedShell", {
    buffer = b,
    callback = function()
      changed = vim.v.fcs_reason ~= "" and vim.v.fcs_reason ~= "deleted"
      vim.v.fcs_choice = choice
    end,
  })
  pcall(vim.api.nvim_command, "checktime " .. b)
  pcall(api.nvim_del_autocmd, id)
  return changed
end

--- :write the buffer if it is still at change tick `tick`. Truthful: "saved" only when the
--- buffer is written and no longer modified (an error, or "no" to Vim's question, is not).
---@param p acpchat.request.BufferSave
---@return acpchat.response.BufferSave
function M.save(p)
  local b, why = at_tick(p)
  if not b then
    return why
  end
  -- `write!`: Node checked the disk right before (Vim's own check would ask y/n and stop the
  -- editor when only the file's time changed).
  -- 'writebackup' with 'backupcopy' "no": the file is renamed aside and a new one written, so
  -- a hard link (maybe to a file outside the project) keeps its text; "auto" or no backup at
  -- all would write into it; the backup goes beside the file (a rename, never across disks), and
  -- 'backupskip' (/tmp/* by default) would skip it. All are put back after.
  local wb, bsk, bdir, bkc = vim.o.writebackup, vim.o.backupskip, vim.o.backupdir, vim.bo[b].backupcopy
  vim.o.writebackup, vim.o.backupskip, vim.o.backupdir = true, "", "."
  vim.bo[b].backupcopy = "no"
  local ok, err = pcall(api.nvim_buf_call, b, function()
    vim.cmd("silent write!")
  end)
  vim.o.writebackup, vim.o.backupskip, vim.o.backupdir = wb, bsk, bdir
  vim.bo[b].backupcopy = bkc
  if not ok then
    return { result = "not_saved", error = (tostring(err):gsub("^.-Vim[^:]*:", "")) }
  end
  if vim.bo[b].modified then
    return { result = "not_saved", error = "the buffer was not written (declined)" }
  end
  return { result = "saved" }
end

--- Reload an unmodified buffer from disk (the file changed behind it), keeping its view and
--- undo history like :checktime does.
---@param p acpchat.request.BufferReload
---@return acpchat.response.BufferReload
function M.reload_unmodified(p)
  local b = M.find_buf(p.path)
  if not b then
    return { result = "not_loaded" }
  end
  if vim.bo[b].modified then
    return { result = "changed" }
  end
  M.checktime(b, "reload")
  return { result = "reloaded" }
end

--- After a disk write: a buffer that holds the file and has no edits reloads it.
---@param path string
function M.reload(path)
  local b = M.find_buf(path)
  if b and not vim.bo[b].modified then
    M.checktime(b, "reload")
  end
end

return M
