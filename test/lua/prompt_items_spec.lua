-- lua/acpchat/complete/prompt_items.lua: what `/` and `@` complete and how a file is described,
-- shared by the omnifunc and the prompt's language server.
---@diagnostic disable: missing-fields, duplicate-set-field (specs build partial chats and redirect files)
local items = require("acpchat.complete.prompt_items")
local config = require("acpchat.config")

describe("context", function()
  it("an @ that starts a word completes a file", function()
    eq({ kind = "file", col = 5, prefix = "src/ma" }, items.context("read @src/ma", 0))
    eq({ kind = "file", col = 0, prefix = "" }, items.context("@", 3))
  end)
  it("an @ inside a word is not a mention", function()
    eq(nil, items.context("mail me@exa", 0))
  end)
  it("a / completes a command only first in the prompt", function()
    eq({ kind = "command", col = 2, prefix = "rev" }, items.context("  /rev", 0))
    eq(nil, items.context("/rev", 1))
    eq(nil, items.context("see /rev", 0))
    eq(nil, items.context("/a/b", 0))
  end)
end)

describe("media_type", function()
  it("images and audio by extension, whatever its case", function()
    eq({ "image", "image/png" }, { items.media_type("a/b.PNG") })
    eq({ "audio", "audio/flac" }, { items.media_type("song.flac") })
  end)
  it("nothing for other files", function()
    eq({}, { items.media_type("main.lua") })
    eq({}, { items.media_type("Makefile") })
  end)
end)

describe("size_text", function()
  it("bytes, then one decimal under ten, then whole units", function()
    eq("812 B", items.size_text(812))
    eq("1.0 KB", items.size_text(1024))
    eq("4.1 KB", items.size_text(4200))
    eq("12 MB", items.size_text(12 * 1024 * 1024))
    eq("3.0 GB", items.size_text(3 * 1024 ^ 3))
    eq("2048 GB", items.size_text(2 * 1024 ^ 4))
  end)
end)

describe("describe", function()
  before_each(function()
    config.set({})
  end)
  it("a text file goes with the prompt", function()
    local d = items.describe("src/main.lua", { size = 2048, type = "file" })
    eq("lua file · 2.0 KB", d.detail)
    eq(nil, d.media)
    matches("its text goes with the prompt", d.doc)
  end)
  it("an image is attached when the agent accepts images", function()
    local d = items.describe("shot.png", { size = 100, type = "file" })
    eq("png image · 100 B", d.detail)
    eq("image", d.media)
    matches("%(image/png%)", d.doc)
    matches("attached as an image", d.doc)
  end)
  it("an image over media.max_bytes cannot be attached", function()
    config.set({ media = { max_bytes = 1000 } })
    matches("larger than media.max_bytes %(1000 B%)", items.describe("big.jpg", { size = 5000, type = "file" }).doc)
  end)
  it("a folder or a file not stat'ed yet", function()
    matches("not a regular file %(directory%)", items.describe("src", { type = "directory" }).doc)
    eq("file", items.describe("README", nil).detail)
  end)
end)

describe("commands", function()
  local chat = {
    status = {
      commands = {
        { name = "review", description = "r" },
        { name = "rename", description = "n" },
        { name = "evil\nname", description = "x" },
        { name = "two words", description = "x" },
        { name = "", description = "x" },
      },
    },
  }
  it("the agent's commands that start with the prefix, in its order", function()
    eq(
      { "review", "rename" },
      vim.tbl_map(function(c)
        return c.name
      end, items.commands(chat, "re"))
    )
    eq(
      { "rename" },
      vim.tbl_map(function(c)
        return c.name
      end, items.commands(chat, "ren"))
    )
  end)
  it("leaves out names that cannot be typed as one word", function()
    eq(2, #items.commands(chat, ""))
  end)
  it("none before the agent said any", function()
    eq({}, items.commands({}, ""))
  end)
end)
