import { existsSync, statSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TextPipe } from "../../src/nvim/text-pipe.js";

/** A pipe opened by a stand-in for Lua: a real connection to its socket, which writes what the test says. */
async function opened(token?: string, helloMs?: number): Promise<{ pipe: TextPipe; lua: Socket; path: string }> {
  const pipe = new TextPipe(helloMs);
  pipes.push(pipe);
  const asked = new Promise<{ path: string; token: string }>((resolve) =>
    pipe.open(async (path, t) => resolve({ path, token: t })),
  );
  const { path, token: real } = await asked;
  const lua = createConnection(path);
  lua.on("error", () => {});
  await new Promise((r) => lua.once("connect", r));
  lua.write(`${token ?? real}\n`);
  return { pipe, lua, path };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
};

/** Write `bytes` in pieces of `size`, each a read of its own on the other end. */
async function dribble(s: Socket, bytes: Buffer, size: number): Promise<void> {
  for (let at = 0; at < bytes.length; at += size) {
    s.write(bytes.subarray(at, at + size));
    await new Promise((r) => setTimeout(r, 1));
  }
}

const pipes: TextPipe[] = [];
afterEach(() => {
  for (const p of pipes.splice(0)) p.close();
});

describe("the host's text pipe", () => {
  it("takes each frame whole, however it is cut, before or after the answer that names it", async () => {
    const { pipe, lua, path } = await opened();
    await until(() => pipe.isOpen);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    const text = "ünïcode line\n".repeat(5000);
    const a = pipe.nextFrame()!;
    const b = pipe.nextFrame()!;
    const c = pipe.nextFrame()!;
    const bytes = (id: number, t: string) =>
      Buffer.concat([Buffer.from(`${id} ${Buffer.byteLength(t)}\n`), Buffer.from(t)]);
    // a: the answer first, then the frame in odd pieces (a header cut too); b: empty; c: first.
    const tookA = pipe.take(a, Buffer.byteLength(text));
    await dribble(lua, Buffer.concat([bytes(a, text), bytes(b, ""), bytes(c, "short")]), 4093);
    expect(await tookA).toBe(text);
    expect(await pipe.take(b, 0)).toBe("");
    expect(await pipe.take(c, 5)).toBe("short");
    expect(pipe.isOpen).toBe(true);
  });

  it("a wrong token is not listened to; the pipe stays shut and reads go over RPC", async () => {
    const { pipe, lua } = await opened("not-the-token");
    await new Promise((r) => lua.once("close", r));
    expect(pipe.isOpen).toBe(false);
    expect(pipe.nextFrame()).toBeUndefined();
  });

  it("a frame of another length than announced, or a pipe that closes, gives nothing and shuts the pipe", async () => {
    const first = await opened();
    await until(() => first.pipe.isOpen);
    const id = first.pipe.nextFrame()!;
    const took = first.pipe.take(id, 10);
    first.lua.write(`${id} 3\nabc`);
    expect(await took).toBeUndefined();
    expect(first.pipe.nextFrame()).toBeUndefined();

    const second = await opened();
    await until(() => second.pipe.isOpen);
    const waiting = second.pipe.take(second.pipe.nextFrame()!, 5);
    second.lua.destroy();
    expect(await waiting).toBeUndefined();
    expect(second.pipe.isOpen).toBe(false);
  });

  it("a connection that does not prove the token is cut off; once Lua's is in, every other is", async () => {
    const { pipe, lua, path } = await opened("", 300);
    const silent = createConnection(path);
    await new Promise((r) => silent.once("connect", r));
    // Neither the empty token's connection nor one that says nothing holds the host.
    await Promise.all([lua, silent].map((s) => new Promise((r) => s.once("close", r))));
    expect(pipe.isOpen).toBe(false);

    const second = await opened(undefined, 60_000);
    const waiting = createConnection(second.path);
    await new Promise((r) => waiting.once("connect", r));
    // second's own connection proves the token (written by opened()): the waiting one is cut off.
    await until(() => second.pipe.isOpen);
    await new Promise((r) => waiting.once("close", r));
    const late = createConnection(second.path);
    const refused = await new Promise((r) => {
      late.once("error", () => r(true));
      late.once("close", () => r(true));
    });
    expect(refused).toBe(true);
  });

  it("given up before the token came, the pipe stays shut when it comes", async () => {
    const pipe = new TextPipe();
    pipes.push(pipe);
    const asked = new Promise<{ path: string; token: string }>((resolve) =>
      pipe.open(async (path, t) => resolve({ path, token: t })),
    );
    const { path, token } = await asked;
    const lua = createConnection(path);
    lua.on("error", () => {});
    await new Promise((r) => lua.once("connect", r));
    pipe.close();
    lua.write(`${token}\n`);
    await new Promise((r) => setTimeout(r, 50));
    expect(pipe.isOpen).toBe(false);
    expect(pipe.nextFrame()).toBeUndefined();
  });

  it("a header that is no header shuts the pipe; its folder goes when it closes", async () => {
    const { pipe, lua, path } = await opened();
    await until(() => pipe.isOpen);
    lua.write("x".repeat(200));
    await until(() => !pipe.isOpen);
    pipe.close();
    expect(existsSync(dirname(path))).toBe(false);
  });
});
