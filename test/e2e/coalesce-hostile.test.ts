/**
 * The host's coalescing of text chunks (JsonRpcPeer.coalesce) against an agent whose
 * lines are made to look like a stream of text chunks: the transcript says what the ordinary
 * path (each line parsed) would have said, through a real pipe, Node host and Neovim.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { sendAndWait, startChat } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("chunks that differ only in a field after their text each keep their text; a later duplicate key is not taken for the text", async () => {
    const meta = (k: string) => ({
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello " }, _meta: { k } },
    });
    // {"type":"text","text":"text","type":…}: the line's last string is the second `type`.
    const dup = (type: string) => ({
      raw: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$sessionId","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"text","type":"${type}"}}}}`,
    });
    const c = await startChat(bin, {
      turns: [
        [
          { text: "A:" },
          meta("a"),
          meta("b"),
          meta("c"),
          { text: "|B:" },
          dup("text"),
          dup("image"),
          dup("text"),
          { text: "|end" },
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("A:hello hello hello |B:text");
    // The image line is no text chunk (not valid as an image either): never the text "image".
    expect(text).not.toContain("textimage");
    expect(text).toMatch(/B:text[\s\S]*text\|end/);
  });
});
