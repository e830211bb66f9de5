/** The peer's framing under floods: lines cut anywhere by the pipe arrive whole and unchanged. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { JsonRpcPeer } from "../../src/protocol/jsonrpc.js";

function peerWith(maxLineBytes?: number) {
  const input = new PassThrough();
  const texts: string[] = [];
  const problems: string[] = [];
  const peer = new JsonRpcPeer(input, new PassThrough(), { maxLineBytes, onProblem: (p) => problems.push(p) });
  peer.onNotification("t", undefined, (p) => texts.push((p as { text: string }).text));
  return { input, texts, problems, peer };
}

const line = (text: string) => JSON.stringify({ jsonrpc: "2.0", method: "t", params: { text } }) + "\n";

describe("framing", () => {
  it("delivers every message of a stream cut at every byte boundary, multi-byte characters included", async () => {
    const chunks = ["héllo ", "wörld ✓ ", "🙂", "plain", "x".repeat(3000)];
    const bytes = Buffer.from(chunks.map(line).join(""));
    for (const step of [1, 2, 3, 7, 64, 4096]) {
      const { input, texts, problems } = peerWith();
      for (let i = 0; i < bytes.length; i += step) input.write(bytes.subarray(i, i + step));
      await new Promise((r) => setImmediate(r));
      expect(texts).toEqual(chunks);
      expect(problems).toEqual([]);
    }
  });

  it("a one-line reply of 1.5 MB in 64 KiB pieces arrives byte for byte", async () => {
    const { input, texts } = peerWith();
    const text = Array.from({ length: 400000 }, (_, i) => `w${i % 10} `).join("");
    const bytes = Buffer.from(line(text));
    for (let i = 0; i < bytes.length; i += 65536) input.write(bytes.subarray(i, i + 65536));
    await new Promise((r) => setImmediate(r));
    expect(texts).toHaveLength(1);
    expect(texts[0] === text).toBe(true);
  });

  it("drops a line over the limit whether it came in one buffer or several, and keeps going", async () => {
    const { input, texts, problems } = peerWith(100);
    input.write(line("a".repeat(200)) + line("ok1"));
    const long = Buffer.from(line("b".repeat(300)));
    input.write(long.subarray(0, 50));
    input.write(long.subarray(50, 90));
    input.write(Buffer.concat([long.subarray(90), Buffer.from(line("ok2"))]));
    await new Promise((r) => setImmediate(r));
    expect(texts).toEqual(["ok1", "ok2"]);
    expect(problems).toHaveLength(2);
  });
});
