/**
 * Buffer text from Neovim on a pipe of its own, beside the RPC channel. A large string answered
 * over RPC is msgpack on both ends, and Neovim 0.12 writes it in pieces of a few KB that the node
 * client decodes one read at a time: a 450 KB read cost the host 13-18 ms of CPU and 17-29 ms of
 * wall time that way, against 7-9 ms and 7-10 ms as raw bytes on a Unix socket (load 7, 0.12;
 * on 0.10 the gain is smaller). Every read of a buffer (fs/read_text_file, read_file) pays it.
 *
 * Lua (lua/acpchat/host/text_pipe.lua) connects once the host asks it, proves the token on its
 * first line, then writes each slice it was asked for as a frame `<id> <bytes>\n<text>` and
 * answers the RPC request with the byte count alone. Until Lua has connected, or once the pipe
 * failed, texts come over RPC as before.
 *
 * The socket is in a folder only this user can open (mode 0700), and only the connection that
 * proves the token is read: no other process can hand the host text it would take for a buffer's.
 * Agents never learn the path or the token.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { privateSocketDir, sameToken } from "../editor-tools/channel-dir.js";

/** How long a frame may lag behind the RPC answer that announced it before the pipe is given up. */
const FRAME_MS = 10_000;
/** How long a connection may take to prove the token before it is cut off. */
const HELLO_MS = 5_000;
const NEWLINE = 0x0a;
/** A header line (`<id> <bytes>`) or the token's line is short; a longer one is a fault. */
const MAX_HEADER = 128;

type Waiter = { bytes: number; resolve: (text: string | undefined) => void; timer: NodeJS.Timeout };

export class TextPipe {
  private state: "off" | "opening" | "open" | "broken" = "off";
  private server?: Server;
  private dir?: string;
  private socket?: Socket;
  private readonly token = randomBytes(32).toString("base64url");
  private nextId = 1;
  /** Frames that came before their RPC answer: the text, and its length in bytes. */
  private readonly arrived = new Map<number, { text: string; bytes: number }>();
  private readonly waiting = new Map<number, Waiter>();
  /** Connections that have not proven the token yet. */
  private readonly pending = new Set<Socket>();

  constructor(private readonly helloMs = HELLO_MS) {}

  /**
   * Listen, and ask Lua to connect (`connect`: a request to Lua with the path and the token).
   * Once; reads meanwhile come over RPC. A failure here only means they go on doing so.
   */
  open(connect: (path: string, token: string) => Promise<unknown>): void {
    if (this.state !== "off") return;
    this.state = "opening";
    try {
      this.dir = privateSocketDir();
      const path = join(this.dir, "text.sock");
      this.server = createServer((s) => this.accept(s));
      this.server.on("error", () => this.break());
      this.server.listen(path, () => {
        connect(path, this.token).catch(() => this.break());
      });
      process.once("exit", () => this.close());
    } catch {
      this.break();
    }
  }

  /** An id for the next slice when the pipe is open: Lua writes the text there. */
  nextFrame(): number | undefined {
    return this.state === "open" ? this.nextId++ : undefined;
  }

  /** Frame `id`'s text, `bytes` long; undefined when it did not come whole (the pipe is then given up). */
  take(id: number, bytes: number): Promise<string | undefined> {
    const got = this.arrived.get(id);
    if (got !== undefined) {
      this.arrived.delete(id);
      if (got.bytes === bytes) return Promise.resolve(got.text);
      this.break();
      return Promise.resolve(undefined);
    }
    if (this.state !== "open") return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.break(), FRAME_MS);
      this.waiting.set(id, { bytes, resolve, timer });
    });
  }

  /** Whether Lua's texts come here. */
  get isOpen(): boolean {
    return this.state === "open";
  }

  close(): void {
    this.break();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  /**
   * Given up: what waits gets nothing (the reader asks again over RPC), and every later read of
   * this host goes over RPC (slower, never wrong); a new host opens a new pipe.
   */
  private break(): void {
    this.state = "broken";
    this.socket?.destroy();
    this.server?.close();
    for (const s of this.pending) s.destroy();
    this.pending.clear();
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.waiting.clear();
    this.arrived.clear();
  }

  private accept(socket: Socket): void {
    if (this.socket || this.state !== "opening") return void socket.destroy();
    // A connection that does not prove the token soon is cut off: none may hold the host's files.
    const hello = setTimeout(() => socket.destroy(), this.helloMs);
    this.pending.add(socket);
    socket.once("close", () => {
      clearTimeout(hello);
      this.pending.delete(socket);
    });
    let proven = false;
    let header: Buffer[] = [];
    let headerSize = 0;
    /** The frame being read: its id, the bytes still to come, the parts so far. */
    let frame: { id: number; left: number; parts: Buffer[] } | undefined;
    const fault = () => {
      if (proven) this.break();
      else socket.destroy();
    };
    socket.on("error", () => fault());
    socket.on("close", () => {
      if (proven) this.break();
    });
    socket.on("data", (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length) {
        if (frame) {
          const n = Math.min(frame.left, chunk.length - at);
          frame.parts.push(chunk.subarray(at, at + n));
          frame.left -= n;
          at += n;
          if (frame.left === 0) {
            const all = frame.parts.length === 1 ? frame.parts[0]! : Buffer.concat(frame.parts);
            this.deliver(frame.id, all.toString("utf8"), all.length);
            frame = undefined;
          }
          continue;
        }
        const nl = chunk.indexOf(NEWLINE, at);
        const end = nl < 0 ? chunk.length : nl;
        header.push(chunk.subarray(at, end));
        headerSize += end - at;
        if (headerSize > MAX_HEADER) return fault();
        if (nl < 0) return;
        at = nl + 1;
        const line = Buffer.concat(header).toString("latin1");
        header = [];
        headerSize = 0;
        if (!proven) {
          if (this.state !== "opening" || !sameToken(line, this.token)) return fault();
          proven = true;
          clearTimeout(hello);
          this.socket = socket;
          this.state = "open";
          // Lua's one connection is here: no other is taken, and those waiting are cut off.
          this.server?.close();
          for (const other of this.pending) if (other !== socket) other.destroy();
          this.pending.clear();
          continue;
        }
        const m = /^(\d+) (\d+)$/.exec(line);
        if (!m) return fault();
        frame = { id: Number(m[1]), left: Number(m[2]), parts: [] };
        if (frame.left === 0) {
          this.deliver(frame.id, "", 0);
          frame = undefined;
        }
      }
    });
  }

  private deliver(id: number, text: string, bytes: number): void {
    const w = this.waiting.get(id);
    if (!w) return void this.arrived.set(id, { text, bytes });
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (w.bytes === bytes) return w.resolve(text);
    w.resolve(undefined);
    this.break();
  }
}
