import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { JsonRpcPeer, type Frame } from "../../src/protocol/jsonrpc.js";
import { ConnectionClosedError, ErrorCodes, RpcError } from "../../src/protocol/errors.js";

/** Two peers wired back to back, in memory. */
function pair() {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  const framesA: Frame[] = [];
  const problemsA: string[] = [];
  const a = new JsonRpcPeer(bToA, aToB, { onFrame: (f) => framesA.push(f), onProblem: (p) => problemsA.push(p) });
  const b = new JsonRpcPeer(aToB, bToA);
  return { a, b, framesA, problemsA, aToB, bToA };
}

/** A peer facing raw lines: what it writes is collected as parsed JSON. */
function rawPeer(opts: { maxLineBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const problems: string[] = [];
  const peer = new JsonRpcPeer(input, output, { onProblem: (p) => problems.push(p), ...opts });
  const written: Record<string, unknown>[] = [];
  let buf = "";
  output.on("data", (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      written.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  const send = (s: string) => input.write(s);
  const tick = () => new Promise((r) => setTimeout(r, 10));
  return { peer, input, written, problems, send, tick };
}

describe("JsonRpcPeer", () => {
  it("round-trips requests, results and notifications both ways", async () => {
    const { a, b } = pair();
    b.onRequest("add", z.object({ x: z.number(), y: z.number() }), ({ x, y }) => x + y);
    const seen: unknown[] = [];
    a.onNotification("ping", undefined, (p) => seen.push(p));
    await expect(a.request("add", { x: 2, y: 3 })).resolves.toBe(5);
    b.notify("ping", { n: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([{ n: 1 }]);
  });

  it("answers unknown methods with -32601 and bad params with -32602", async () => {
    const { a, b } = pair();
    b.onRequest("add", z.object({ x: z.number() }), ({ x }) => x);
    await expect(a.request("nope", {})).rejects.toMatchObject({ code: ErrorCodes.MethodNotFound });
    await expect(a.request("add", { x: "one" })).rejects.toMatchObject({
      code: ErrorCodes.InvalidParams,
      message: expect.stringContaining("x"),
    });
  });

  it("passes handler RpcErrors through with their code and data", async () => {
    const { a, b } = pair();
    b.onRequest("read", undefined, () => {
      throw new RpcError(ErrorCodes.ResourceNotFound, "Resource not found: /x", { path: "/x" });
    });
    const err = await a.request("read", {}).catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32002, message: "Resource not found: /x", data: { path: "/x" } });
  });

  it("survives garbage: not JSON gets -32700, not a message gets -32600, and the connection stays up", async () => {
    const { peer, written, problems, send, tick } = rawPeer();
    peer.onRequest("echo", undefined, (p) => p);
    send("hello, I am a banner\n");
    send('{"jsonrpc":"2.0","id":7}\n');
    send("[1,2,3]\n");
    send('{"jsonrpc":"1.0","id":8,"method":"echo"}\n');
    send('{"jsonrpc":"2.0","id":{"bad":1},"method":"echo"}\n');
    send('{"jsonrpc":"2.0","id":9,"method":"echo","params":"still alive"}\n');
    await tick();
    expect(written.map((w) => (w.error as { code: number } | undefined)?.code ?? w.result)).toEqual([
      -32700,
      -32600,
      -32600,
      -32600,
      -32600,
      "still alive",
    ]);
    expect(written[1]!.id).toBe(7);
    expect(written[3]!.id).toBe(8);
    expect(problems).toHaveLength(5);
    expect(peer.closed).toBe(false);
  });

  it("reassembles lines split across writes and handles several lines in one write", async () => {
    const { peer, input, written, tick } = rawPeer();
    peer.onRequest("echo", undefined, (p) => p);
    const line = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "echo", params: "héllo wörld" });
    const bytes = Buffer.from(
      line + "\n" + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "echo", params: 2 }) + "\n",
    );
    // Feed byte triples through the stream, splitting inside the multi-byte characters too.
    for (let i = 0; i < bytes.length; i += 3) input.write(bytes.subarray(i, i + 3));
    await tick();
    expect(written.map((w) => w.result)).toEqual(["héllo wörld", 2]);
  });

  it("drops an over-long line with one problem and keeps going", async () => {
    const { peer, written, problems, send, tick } = rawPeer({ maxLineBytes: 1000 });
    peer.onRequest("echo", undefined, (p) => p);
    send('{"jsonrpc":"2.0","id":1,"method":"echo","params":"' + "x".repeat(600));
    send("x".repeat(600) + '"}\n');
    send('{"jsonrpc":"2.0","id":2,"method":"echo","params":"ok"}\n');
    await tick();
    expect(problems.filter((p) => p.includes("dropped"))).toHaveLength(1);
    expect(written.map((w) => w.result)).toEqual(["ok"]);
  });

  it("ignores responses to ids it never sent, and refuses a duplicate in-flight id", async () => {
    const { peer, written, problems, send, tick } = rawPeer();
    let release!: () => void;
    peer.onRequest("slow", undefined, () => new Promise<string>((r) => (release = () => r("done"))));
    send('{"jsonrpc":"2.0","id":99,"result":{}}\n');
    send('{"jsonrpc":"2.0","id":5,"method":"slow"}\n');
    send('{"jsonrpc":"2.0","id":5,"method":"slow"}\n');
    await tick();
    release();
    await tick();
    expect(problems.some((p) => p.includes("unknown request id 99"))).toBe(true);
    expect(written.map((w) => [w.id, (w.error as { code: number } | undefined)?.code ?? w.result])).toEqual([
      [5, -32600],
      [5, "done"],
    ]);
  });

  it("$/cancel_request aborts the handler, which answers -32800", async () => {
    const { a, b } = pair();
    let aborted = false;
    b.onRequest(
      "wait",
      undefined,
      (_p, { signal }) =>
        new Promise((_r, reject) =>
          signal.addEventListener("abort", () => ((aborted = true), reject(new Error("stop")))),
        ),
    );
    const ac = new AbortController();
    const p = a.request("wait", {}, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toBe(true);
  });

  it("times out a request with a clear error", async () => {
    const { a, b } = pair();
    b.onRequest("never", undefined, () => new Promise(() => undefined));
    await expect(a.request("never", {}, { timeoutMs: 50 })).rejects.toThrow(/never got no answer/);
  });

  it("on close rejects every pending request and aborts every in-flight handler", async () => {
    const { a, b } = pair();
    let handlerSignal: AbortSignal | undefined;
    a.onRequest("inflight", undefined, (_p, { signal }) => {
      handlerSignal = signal;
      return new Promise(() => undefined);
    });
    b.onRequest("never", undefined, () => new Promise(() => undefined));
    const p1 = a.request("never", {});
    const p2 = a.request("never", {});
    void b.request("inflight", {}).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 10));
    a.close("test over");
    await expect(p1).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(p2).rejects.toThrow(/test over/);
    expect(handlerSignal?.aborted).toBe(true);
    await expect(a.request("never", {})).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("closes when the input ends", async () => {
    const { a, b, bToA } = pair();
    b.onRequest("x", undefined, () => new Promise(() => undefined));
    const p = a.request("x", {});
    await new Promise((r) => setTimeout(r, 10));
    bToA.end();
    await expect(p).rejects.toThrow(/closed its output/);
    expect(a.closed).toBe(true);
  });

  it("traces responses with the method of their request", async () => {
    const { a, b, framesA } = pair();
    b.onRequest("m", undefined, () => 1);
    await a.request("m", {});
    expect(framesA.map((f) => [f.direction, f.kind, f.method])).toEqual([
      ["out", "request", "m"],
      ["in", "response", "m"],
    ]);
  });
});
