import { Decoder, encode } from "@msgpack/msgpack";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { appendInPlace } from "../../src/nvim/msgpack-append.js";

/** A decoder whose unread bytes grow in place (the host's), decoding `bytes` cut into `sizes`. */
async function decodeInPieces(bytes: Uint8Array, sizes: () => number): Promise<unknown[]> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, Math.min(sizes(), bytes.length - at));
    chunks.push(Buffer.from(bytes.subarray(at, at + n)));
    at += n;
  }
  const decoder = new Decoder();
  (decoder as unknown as { appendBuffer: typeof appendInPlace }).appendBuffer = appendInPlace;
  const out: unknown[] = [];
  for await (const m of decoder.decodeStream(Readable.from(chunks))) out.push(m);
  // A bin value is a view of whichever buffer held it (a chunk or the decoder's): compared as bytes.
  return out.map((m) => (Array.isArray(m) && m[3] instanceof Uint8Array ? [...m.slice(0, 3), Array.from(m[3])] : m));
}

describe("the host's msgpack stream decoding", () => {
  const big = "x".repeat(46).concat("\n").repeat(3_000);
  const messages = [
    [1, 7, null, big],
    [2, "redraw", [["a", 1], { k: "é∑ü" }]],
    [1, 8, null, new Uint8Array([1, 2, 3, 4, 5])],
    [1, 9, null, "short"],
    [1, 10, null, big.slice(0, 70_000) + "ü".repeat(10_000)],
    [1, 11, null, new Uint8Array(100_000).fill(7)],
    [1, 12, null, [1, 2, 3]],
  ];
  const stream = Buffer.concat(messages.map((m) => Buffer.from(encode(m))));
  const expected = messages.map((m) => (m[3] instanceof Uint8Array ? [...m.slice(0, 3), Array.from(m[3])] : m));
  const small = messages.filter((m) => JSON.stringify(m).length < 1000);

  it("decodes every message whole, however the reads cut them", async () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (const sizes of [() => 1 + (random() % 9000), () => 6000, () => 65_536, () => 1 << 30])
      expect(await decodeInPieces(stream, sizes)).toEqual(expected);
    // A byte or a few at a time: every header and value cut somewhere.
    const few = Buffer.concat(small.map((m) => Buffer.from(encode(m))));
    expect(await decodeInPieces(few, () => 1 + (random() % 7))).toEqual(
      small.map((m) => (m[3] instanceof Uint8Array ? [...m.slice(0, 3), Array.from(m[3])] : m)),
    );
  });

  it("a bin value decoded from the grown bytes keeps them while more is read into the same store", async () => {
    const firstBin = new Uint8Array(10_000).fill(0xab);
    const secondBin = new Uint8Array(10_000).fill(0xcd);
    const seq = [
      [1, 1, null, firstBin],
      [1, 2, null, "y".repeat(20_000)],
      [1, 3, null, secondBin],
    ];
    const chunks: Buffer[] = [];
    const all = Buffer.concat(seq.map((m) => Buffer.from(encode(m))));
    for (let at = 0; at < all.length; at += 3000) chunks.push(Buffer.from(all.subarray(at, at + 3000)));
    const decoder = new Decoder();
    (decoder as unknown as { appendBuffer: typeof appendInPlace }).appendBuffer = appendInPlace;
    const got: [number, number, null, Uint8Array | string][] = [];
    for await (const m of decoder.decodeStream(Readable.from(chunks))) got.push(m as (typeof got)[number]);
    // Kept as views, looked at only after everything was read.
    expect((got[0]![3] as Uint8Array).every((b) => b === 0xab)).toBe(true);
    expect(got[1]![3]).toBe("y".repeat(20_000));
    expect((got[2]![3] as Uint8Array).every((b) => b === 0xcd)).toBe(true);
  });

  it("bytes already handed out are never written over", async () => {
    // A bin value is a view into the decoder's buffer: later reads must not change it.
    const got = (await decodeInPieces(stream, () => 5000)) as [number, number, null, number[]][];
    expect(got[2]![3]).toEqual([1, 2, 3, 4, 5]);
    expect(got[5]![3].every((b) => b === 7)).toBe(true);
  });
});
