-- `@` matching (lua/acpchat/complete/file_match.lua) and the reading of mention tokens
-- (lua/acpchat/complete/mentions.lua): pure functions over lists and text.
local file_match = require("acpchat.complete.file_match")
local mentions = require("acpchat.complete.mentions")

local function match(files, prefix, limit)
  local out, more
  file_match.match(files, prefix, limit or 50, function(paths, truncated)
    out, more = paths, truncated
  end, { sync = true })
  return out, more
end

describe("@ matching", function()
  local files = { "lib/experiment.js", "docs/superman.md", "src/permission.lua", "perm.txt", "other.js", "PERMS.md" }

  it("best first: the path starts with it, its name does, the path holds it, its letters in order", function()
    eq(
      { "perm.txt", "PERMS.md", "src/permission.lua", "docs/superman.md", "lib/experiment.js" },
      (match(files, "perm"))
    )
  end)

  it("a lowercase prefix ignores case; one with a capital does not", function()
    eq(true, vim.tbl_contains(match(files, "perms"), "PERMS.md"))
    eq({ "PERMS.md" }, (match(files, "PERMS")))
  end)

  it("letters in order are found without backtracking: a near miss in a long path is quick", function()
    local long = { string.rep("a", 4000) .. "b" }
    local t0 = vim.uv.hrtime()
    eq({}, (match(long, string.rep("a", 30) .. "c")))
    eq(true, (vim.uv.hrtime() - t0) / 1e6 < 200)
  end)

  it("at most `limit`, said to be cut", function()
    local out, more = match(files, "", 2)
    eq(2, #out)
    eq(true, more)
  end)
end)

describe("mention tokens", function()
  it("each once, at a word's start, a sentence's stop dropped; folders and symbols whole", function()
    eq(
      { "diagnostics", "selection", "src/", "#M.check:src/a.lua:3", "session:fix-bug", "diagnostics:all" },
      mentions.tokens(
        "see @diagnostics, @selection. @src/ and @#M.check:src/a.lua:3? @diagnostics mail a@b @session:fix-bug\n@diagnostics:all"
      )
    )
  end)

  it("a session's title as one token", function()
    eq("Fix-the-login-bug", mentions.slug("  Fix the  login bug. "))
    eq("a-b", mentions.slug("a@b"))
  end)

  it("a symbol as a token, relative to the cwd; a name with a space is none", function()
    local chat = { cwd = "/p" }
    eq("#M.check:src/a.lua:3", mentions.symbol_token(chat, { name = "M.check", path = "/p/src/a.lua", line = 3 }))
    eq(nil, mentions.symbol_token(chat, { name = "describe it", path = "/p/a.lua", line = 1 }))
  end)
end)
