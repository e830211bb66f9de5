-- Images and audio as the transcript shows them (lua/acpchat/transcript/text.lua, lua/acpchat/chat/media.lua):
-- one line with type, name, mimeType and size, the keys on it, and which clip a row holds.
local text = require("acpchat.transcript.text")
local media = require("acpchat.chat.media")

describe("media lines", function()
  it("a clip of the agent: type, mimeType, size and the keys; never more than one line", function()
    local lines, hls, line_hl =
      text.block({ id = "b1", type = "media", role = "agent", kind = "image", mime = "image/png", size = 12345 })
    eq({ "[image] image/png · 12.1 KB  (gx: open · gS: save)" }, lines)
    eq({ 0, 0, 7, "AcpChatToolTitle" }, hls[1])
    eq(nil, line_hl)
  end)

  it("the user's clip carries its name and the user's prefix; control characters are escaped", function()
    local lines, _, line_hl = text.block({
      id = "b2",
      type = "media",
      role = "user",
      kind = "audio",
      mime = "audio/wav",
      size = 900,
      name = "a\nb.wav",
    })
    eq({ "> [audio] a\\nb.wav · audio/wav · 900 B  (gx: open · gS: save)" }, lines)
    eq("AcpChatUser", line_hl)
  end)

  it("a tool call's clips: a line each, and media_at says which content item a row shows", function()
    local v = {
      type = "tool",
      tool_call_id = "t",
      title = "shot",
      kind = "other",
      status = "completed",
      content = {
        { type = "text", text = "took it" },
        { type = "media", index = 1, kind = "image", mime = "image/jpeg", size = 2048 },
      },
    }
    local lines = text.block(v)
    eq("  [image] image/jpeg · 2.0 KB  (gx: open · gS: save)", lines[3])
    eq(1, text.media_at(v, 2))
    eq(nil, text.media_at(v, 1))
    eq(nil, text.media_at({ type = "agent", text = "x" }, 0))
  end)

  it("the name offered when saving: the clip's own, else its type and extension", function()
    eq("cat.png", media.default_name("> [image] cat.png · image/png · 1 B  (gx: open · gS: save)"))
    eq("image.png", media.default_name("[image] image/png · 1 B  (gx: open · gS: save)"))
    eq("audio.wav", media.default_name("  [audio] audio/wav · 1 B"))
    eq("image.webp", media.default_name("[image] image/webp · 1 B"))
    eq("media.bin", media.default_name("plain text"))
    -- A name with "  (" in it keeps it: only the keys' hint at the end goes.
    eq("photo  (1).png", media.default_name("> [image] photo  (1).png · image/png · 1 B  (gx: open · gS: save)"))
  end)

  it("which files :AcpChatAdd hands to Node as images and audio", function()
    eq(true, media.is_media("/x/Cat.PNG"))
    eq(true, media.is_media("a.m4a"))
    eq(false, media.is_media("notes.txt"))
    eq(false, media.is_media("png"))
  end)
end)
