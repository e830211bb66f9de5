-- lua/acpchat/complete/prompt_history.lua: prompts kept per folder in a JSON file, newest first,
-- without repeats, at most `max`; stepping through them in a prompt buffer keeps the draft.
---@diagnostic disable: missing-fields, duplicate-set-field (specs build partial chats and redirect files)
local history = require("acpchat.complete.prompt_history")
local api = vim.api

local file
before_each(function()
  -- A file of the spec's own instead of stdpath("state"): the same reads and writes.
  file = vim.fn.tempname() .. "/prompts.json"
  history.file = function()
    return file
  end
  history.max = 100
end)

describe("add and list", function()
  it("newest first, per folder", function()
    history.add("/a", "one")
    history.add("/a", "two")
    history.add("/b", "other")
    eq({ "two", "one" }, history.list("/a"))
    eq({ "other" }, history.list("/b"))
    eq({}, history.list("/c"))
  end)
  it("a prompt sent again moves to the front instead of repeating", function()
    history.add("/a", "one")
    history.add("/a", "two")
    history.add("/a", "one")
    eq({ "one", "two" }, history.list("/a"))
  end)
  it("keeps at most `max`", function()
    history.max = 3
    for i = 1, 5 do
      history.add("/a", "p" .. i)
    end
    eq({ "p5", "p4", "p3" }, history.list("/a"))
  end)
  it("a damaged file reads as empty and is replaced on the next add", function()
    vim.fn.mkdir(vim.fn.fnamemodify(file, ":h"), "p")
    vim.fn.writefile({ "{not json" }, file)
    eq({}, history.list("/a"))
    history.add("/a", "x")
    eq({ "x" }, history.list("/a"))
  end)
end)

describe("step", function()
  it("older and newer, and the draft comes back after the newest", function()
    history.add("/a", "first")
    history.add("/a", "second\nline")
    local chat = { cwd = "/a", prompt_buf = api.nvim_create_buf(false, true) }
    api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, { "typing" })
    history.step(chat, 1)
    eq({ "second", "line" }, api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false))
    history.step(chat, 1)
    eq({ "first" }, api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false))
    history.step(chat, 1) -- no older one: stays
    eq({ "first" }, api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false))
    history.step(chat, -1)
    history.step(chat, -1)
    eq({ "typing" }, api.nvim_buf_get_lines(chat.prompt_buf, 0, -1, false))
  end)
  it("sent() starts again from the newest and records the prompt", function()
    local chat = { cwd = "/a", prompt_buf = api.nvim_create_buf(false, true), history_at = 2 }
    history.sent(chat, "new")
    eq(0, chat.history_at)
    eq({ "new" }, history.list("/a"))
  end)
end)
