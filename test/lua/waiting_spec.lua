-- lua/acpchat/chat/waiting.lua: a waiting question's block says what it asks and what each key
-- does; a review opens in a tab, so its block names the tab's keys, not a list's.
local waiting

before_each(function()
  waiting = reload("acpchat.chat.waiting")
end)

describe("block", function()
  it("a permission question: its choices, and the list's keys", function()
    local lines = waiting.block({ key = "k", chat = 1, label = "allow rm", choices = { "Allow", "Reject" } }, 80)
    local text = table.concat(lines, "\n")
    matches("%? The agent asks: allow rm", text)
    matches("1%. Allow", text)
    matches("open the list now", text)
    matches("In the list: pick a choice", text)
  end)

  it("a review: no list, the tab's keys", function()
    local lines =
      waiting.block({ key = "k", chat = 1, label = "review the change to a.txt", choices = {}, tab = true }, 80)
    local text = table.concat(lines, "\n")
    matches("open the review now", text)
    matches("In its tab: ga/gA accept, gr/gR reject, ZZ finishes", text)
    eq(nil, text:find("In the list", 1, true))
    lines = waiting.block({ key = "k", chat = 1, label = "x", choices = {}, tab = true, parked = true }, 80)
    matches("open the review again", table.concat(lines, "\n"))
  end)
end)
