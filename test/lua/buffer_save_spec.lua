-- lua/acpchat/editor/workspace.lua save(): the agent's write saved through a loaded buffer never
-- writes into a file with other hard links (one may be a file outside the project).
local ws = require("acpchat.editor.workspace")
local api = vim.api

describe("save", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/proj", "p")
  vim.fn.mkdir(dir .. "/outside", "p")
  it("a hard link to a file outside gets a file of its own; the outside file keeps its text", function()
    local outside, f = dir .. "/outside/bashrc", dir .. "/proj/notes.txt"
    vim.fn.writefile({ "user's" }, outside)
    assert(vim.uv.fs_link(outside, f))
    vim.o.writebackup = false -- the user's own setting: must not make the save write in place
    vim.cmd.edit(f)
    local b = api.nvim_get_current_buf()
    api.nvim_buf_set_lines(b, 0, -1, false, { "agent" })
    eq("saved", ws.save({ path = f, tick = api.nvim_buf_get_changedtick(b) }).result)
    eq({ "user's" }, vim.fn.readfile(outside))
    eq({ "agent" }, vim.fn.readfile(f))
    eq(1, vim.uv.fs_stat(f).nlink)
    eq(false, vim.o.writebackup)
    eq("", vim.bo[b].backupcopy)
    vim.cmd("bwipeout!")
  end)
end)
