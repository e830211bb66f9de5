-- Chat ids are the keys Node holds chats by: a registry loaded again (the rest of the plugin
-- reloaded, the host still running) must not give a new chat the id of an earlier one, whose
-- late events would then draw into it.
describe("chat ids", function()
  it("never repeat when the registry is loaded again", function()
    local first = require("acpchat.chat.registry").new_id()
    package.loaded["acpchat.chat.registry"] = nil
    local again = require("acpchat.chat.registry").new_id()
    truthy(again > first, string.format("id %d after %d", again, first))
  end)
end)
