/**
 * The JSON-RPC trace of one chat: every frame in and out as a JSON line
 * `{time, dir, kind, id, method, size, payload}` with secrets redacted, appended to a file and
 * kept (bounded, as a ring) in memory for `:AcpChatLog`. Text chunks the peer read together
 * (a run, see JsonRpcPeer.coalesce) are one line of kind `notifications` whose payload is
 * `{count, message, texts}`: their common message (its text empty) and each one's text. Each frame is serialised and redacted
 * once, as text: the trace must keep up with thousands of updates a second. The file is written
 * in batches (at most one every 200 ms), asynchronously: the disk never holds up the text on its
 * way to the editor.
 */
import { appendFile, appendFileSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Frame } from "../protocol/jsonrpc.js";
import { hasSecretHint, PieceRedactor, type Redactor } from "./redact.js";
import { elideMedia, mayHoldMedia } from "./media-elide.js";
import type { TraceEntryWire } from "../wire/index.js";

/** A trace entry as the log keeps it: the wire's, with its payload as data (it crosses as JSON text). */
export type TraceEntry = Omit<TraceEntryWire, "payloadJson"> & { payload: unknown };

/** Payloads above this are cut in the trace (a 50 MB line must not become a 50 MB log entry). */
const MAX_PAYLOAD_CHARS = 16 * 1024;
/** The most the in-memory ring keeps, in characters (the file keeps everything). */
const MAX_RING_CHARS = 1024 * 1024;
/** How long frames wait for their trace work (redaction, serialising): off a reply's way to the screen. */
const DRAIN_MS = 50;
/** Frames (and their characters) queued for the trace at most before it does their work at once. */
const MAX_QUEUED = 20_000;
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;
/** How long frames gather before they are written to the file together. */
const BATCH_MS = 200;

export class TraceLog {
  /**
   * The lines kept in memory: `ring[first..]`, oldest first, holding at most maxEntries frames
   * (a line of a run holds several: `frames[i]`) and MAX_RING_CHARS characters.
   */
  private ring: (string | undefined)[] = [];
  private frames: number[] = [];
  private first = 0;
  private ringChars = 0;
  private ringFrames = 0;
  private pendingLines: string[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** A batch is being written to the file (the next waits for it: lines stay in order). */
  private writing = false;
  /** flush() was called while a batch was being written. */
  private flushAfterWrite = false;
  private lastMs = 0;
  private lastIso = "";
  /** The last method name and its JSON text (a trace sees few distinct methods, in runs). */
  private lastMethod: string | undefined;
  private lastMethodJson = "";
  private lastMethodHint = false;
  /** The text of the chunk frame() is tracing, when the frame carries one (see wireHint). */
  private chunkText: string | undefined;
  /** The parts of a chunk's wire text around its text, as the last chunk had them. */
  private shape: { pre: string; post: string; hint: boolean } | undefined;
  /** Whether the last frameHead() holds a hint of a secret in its id or method. */
  private headHint = false;
  /** Per head of a run (Frame.run): its stream, whether it is free of secrets, its message with an empty text. */
  private readonly runShapes = new Map<string, { stream: string; plain: boolean; empty: string }>();
  /** Streamed text (message chunks, terminal output) is redacted across its pieces. */
  private readonly pieces: PieceRedactor;

  constructor(
    private readonly redactor: Redactor,
    private readonly file?: string,
    private readonly maxEntries = 5000,
  ) {
    if (file) mkdirSync(dirname(file), { recursive: true });
    this.pieces = new PieceRedactor(redactor);
  }

  /**
   * A frame for the trace. Its work (redaction, serialising) is done after the reads at hand
   * are handled and their batch has gone to the editor (see defer): the trace never holds up
   * the text on its way to the screen.
   */
  frame(f: Frame): void {
    this.defer(f, f.size);
  }

  /** The frames and notes waiting for their trace work, in order, each with the time it came. */
  private queued: { f: Frame | { kind: string; message: string }; at: number }[] = [];
  private queuedChars = 0;
  private drainTimer: NodeJS.Timeout | undefined;
  /** The time (ms) of the frame or note being traced (now() gives its time, not the drain's). */
  private at: number | undefined;

  /**
   * Queue `f` for drain(): DRAIN_MS after the first frame queued (a short reply is on screen by
   * then), or now when much is queued (a flood then costs the trace what it did, and memory
   * stays bounded). list() and flush() drain first, so nothing is lost or out of order.
   */
  private defer(f: Frame | { kind: string; message: string }, size: number): void {
    this.queued.push({ f, at: Date.now() });
    this.queuedChars += size;
    if (this.queued.length >= MAX_QUEUED || this.queuedChars >= MAX_QUEUED_CHARS) return this.drain();
    if (this.drainTimer) return;
    // Not on the next turn of the loop: a reply comes in several reads, and the trace's work
    // between them would hold up the rest of the reply (the agent's writes wait for the reads).
    this.drainTimer = setTimeout(() => this.drain(), DRAIN_MS);
  }

  /** Trace what is queued, in order. */
  private drain(): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    const queued = this.queued;
    if (queued.length === 0) return;
    this.queued = [];
    this.queuedChars = 0;
    try {
      for (const q of queued) {
        this.at = q.at;
        if ("direction" in q.f) this.trace(q.f);
        else this.noteNow(q.f.kind, q.f.message);
      }
    } finally {
      this.at = undefined;
    }
  }

  private trace(f: Frame): void {
    if (f.run) return this.run(f, f.run);
    this.chunkText = undefined;
    // Images, audio and blobs: the trace keeps the length of their base64 data, never the data.
    if (mayHoldMedia(f.text)) {
      const elided = elideMedia(f.payload);
      if (elided !== f.payload)
        return this.add({
          time: this.now(),
          dir: f.direction,
          kind: f.kind,
          id: f.id,
          method: f.method,
          size: f.size,
          payload: clipRedacted(elided, this.redactor),
        });
    }
    const piece = f.direction === "in" && f.method === "session/update" ? this.streamed(f.payload) : undefined;
    if (piece) {
      this.add({
        time: this.now(),
        dir: f.direction,
        kind: f.kind,
        id: f.id,
        method: f.method,
        size: f.size,
        payload: f.size > MAX_PAYLOAD_CHARS ? clipRedacted(piece, this.redactor) : piece,
      });
      return;
    }
    if (f.text !== undefined && f.size <= MAX_PAYLOAD_CHARS) {
      // The wire text is the payload: splice it in rather than serialising the message again.
      const line = `${this.frameHead(f)},"payload":${f.text}}`;
      // Redaction would leave the line alone when neither its head's own text (id, method: the
      // rest is a time, fixed words and a number) nor the payload holds a hint of a secret, and
      // no known secret is in it (see hasSecretHint): the scan of the head is saved.
      if (!this.headHint && !this.wireHint(f.text) && !this.redactor.jsonHasKnownValue(line)) this.keep(line);
      else this.addLine(line);
      return;
    }
    const payload = f.size > MAX_PAYLOAD_CHARS ? clipRedacted(f.payload, this.redactor) : f.payload;
    this.add({ time: this.now(), dir: f.direction, kind: f.kind, id: f.id, method: f.method, size: f.size, payload });
  }

  /**
   * Notifications the peer read together that differ only in their text (Frame.run), redacted
   * in one pass over their joined text (PieceRedactor.pieces). One of them is written as the
   * frame it is; more are written as one entry of kind `notifications` whose payload holds
   * their count, their common message (its text empty) and each one's text: a flood of small
   * chunks costs one line per read from the pipe, and nothing of it is lost.
   */
  private run(f: Frame, run: NonNullable<Frame["run"]>): void {
    let shape = this.runShapes.get(run.head);
    if (!shape) {
      if (this.runShapes.size >= 16) this.runShapes.clear();
      const params = (f.payload as { params?: { sessionId?: unknown; update?: { sessionUpdate?: unknown } } }).params;
      const empty = `${run.head}""${run.tail}`;
      // A head that may hold a secret (a hint, a known value) is left to the frame-by-frame path.
      const plain = !hasSecretHint(run.head) && !this.redactor.jsonHasKnownValue(empty);
      shape = { stream: `${String(params?.sessionId)}:${String(params?.update?.sessionUpdate)}`, plain, empty };
      this.runShapes.set(run.head, shape);
    }
    if (!shape.plain) {
      for (const t of run.texts) {
        const text = `${run.head}${JSON.stringify(t)}${run.tail}`;
        this.trace({
          direction: f.direction,
          kind: f.kind,
          method: f.method,
          size: text.length + 1,
          payload: JSON.parse(text),
          text,
        });
      }
      return;
    }
    const texts = this.pieces
      .pieces(shape.stream, run.texts)
      .map((t) => (t.length > MAX_PAYLOAD_CHARS ? (clip(t) as string) : t));
    const line =
      texts.length === 1
        ? `${this.frameHead(f)},"payload":${run.head}${JSON.stringify(texts[0])}${run.tail}}`
        : `${this.frameHead(f, "notifications")},"payload":{"count":${texts.length},"message":${shape.empty},"texts":${JSON.stringify(texts)}}}`;
    // The texts are redacted; the rest is the head (checked above) and fixed words.
    if (this.headHint) this.addLine(line, texts.length);
    else this.keep(line, texts.length);
  }

  /**
   * A session/update that carries a piece of a stream (a text chunk, terminal output in
   * `_meta`): a copy with the piece redacted as part of its stream, when that hides more than
   * redacting the frame alone would (a secret split across pieces). Undefined otherwise.
   */
  private streamed(payload: unknown): unknown {
    const params = (payload as { params?: { sessionId?: unknown; update?: Record<string, unknown> } } | undefined)
      ?.params;
    const u = params?.update;
    if (!u || typeof u !== "object") return undefined;
    const kind = u.sessionUpdate;
    const content = u.content as { type?: unknown; text?: unknown } | undefined;
    if (
      (kind === "agent_message_chunk" || kind === "agent_thought_chunk" || kind === "user_message_chunk") &&
      content?.type === "text" &&
      typeof content.text === "string"
    ) {
      const safe = this.pieces.piece(`${String(params!.sessionId)}:${kind}`, content.text);
      if (safe === content.text) {
        this.chunkText = content.text;
        return undefined;
      }
      return { ...(payload as object), params: { ...params, update: { ...u, content: { ...content, text: safe } } } };
    }
    const meta = u._meta as { terminal_output?: { terminal_id?: unknown; data?: unknown } } | undefined;
    const out = meta?.terminal_output;
    if ((kind === "tool_call" || kind === "tool_call_update") && out && typeof out.data === "string") {
      const safe = this.pieces.piece(`terminal:${String(out.terminal_id)}`, out.data);
      if (safe === out.data) return undefined;
      return {
        ...(payload as object),
        params: { ...params, update: { ...u, _meta: { ...meta, terminal_output: { ...out, data: safe } } } },
      };
    }
    return undefined;
  }

  /**
   * `{"time":…,"dir":…,"kind":…[,"id":…][,"method":…],"size":…` without its closing brace: the
   * same text as JSON.stringify of those fields (time, dir and kind need no escaping, the size is
   * a number), built without an object per frame.
   */
  private frameHead(f: Frame, kind: string = f.kind): string {
    let head = `{"time":"${this.now()}","dir":"${f.direction}","kind":"${kind}"`;
    this.headHint = false;
    if (f.id !== undefined) {
      const id = JSON.stringify(f.id);
      head += `,"id":${id}`;
      this.headHint = typeof f.id === "string" && hasSecretHint(id);
    }
    if (f.method !== undefined) {
      if (f.method !== this.lastMethod) {
        this.lastMethod = f.method;
        this.lastMethodJson = JSON.stringify(f.method);
        this.lastMethodHint = hasSecretHint(this.lastMethodJson);
      }
      head += `,"method":${this.lastMethodJson}`;
      this.headHint ||= this.lastMethodHint;
    }
    return `${head},"size":${f.size}`;
  }

  /**
   * hasSecretHint(wire), scanning only what changes from one chunk of a stream to the next.
   * The wire text of a chunk is `pre + JSON(text) + post`, and `pre` and `post` repeat from
   * chunk to chunk: they are scanned once, when they change. A hint is a run of letters, `-`,
   * `_` and spaces (see hasSecretHint), so one that crosses a seam needs such characters on
   * both sides of it: then the answer is yes and the whole line is redacted as before.
   */
  private wireHint(wire: string): boolean {
    const text = this.chunkText;
    if (text === undefined) return hasSecretHint(wire);
    let shape = this.shape;
    let mid: string;
    if (
      shape &&
      wire.length >= shape.pre.length + shape.post.length &&
      wire.startsWith(shape.pre) &&
      wire.endsWith(shape.post)
    ) {
      mid = wire.slice(shape.pre.length, wire.length - shape.post.length);
    } else {
      mid = JSON.stringify(text);
      const at = wire.lastIndexOf(mid);
      if (at < 0) return hasSecretHint(wire);
      const pre = wire.slice(0, at);
      const post = wire.slice(at + mid.length);
      shape = this.shape = { pre, post, hint: hasSecretHint(pre) || hasSecretHint(post) };
    }
    if (shape.hint || hasSecretHint(mid)) return true;
    if (mid === "") return seam(shape.pre, shape.post);
    return seam(shape.pre, mid) || seam(mid, shape.post);
  }

  /** ISO time, recomputed at most once a millisecond. */
  private now(): string {
    const ms = this.at ?? Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** A line of the client's own (a problem with what the agent sent, stderr, a lifecycle event). */
  note(kind: string, message: string): void {
    this.defer({ kind, message }, message.length);
  }

  private noteNow(kind: string, message: string): void {
    this.add({ time: this.now(), dir: "note", kind, size: message.length, payload: clip(message) });
  }

  /** The entries kept in memory, oldest first; `filter` matches the method (or kind). */
  list(filter?: string): TraceEntry[] {
    this.drain();
    const entries = this.ring.slice(this.first).map((l) => JSON.parse(l!) as TraceEntry);
    return filter ? entries.filter((e) => (e.method ?? e.kind).includes(filter)) : entries;
  }

  /**
   * Write what is buffered now (called on close): at once when no batch is being written,
   * otherwise right after that batch, so the file keeps the order of the frames.
   */
  flush(): void {
    this.drain();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.file || this.pendingLines.length === 0) return;
    if (this.writing) {
      this.flushAfterWrite = true;
      return;
    }
    try {
      appendFileSync(this.file, this.takePending());
    } catch {
      // The log is a diagnostic aid; failing to write it must not break the chat.
    }
  }

  /** The batch written every 200 ms while frames come: off the event loop, one at a time. */
  private writeBatch(): void {
    this.flushTimer = undefined;
    if (!this.file || this.pendingLines.length === 0) return;
    if (this.writing) {
      this.flushTimer = setTimeout(() => this.writeBatch(), BATCH_MS);
      return;
    }
    this.writing = true;
    appendFile(this.file, this.takePending(), () => {
      // A failed write is dropped: the log is a diagnostic aid.
      this.writing = false;
      if (this.flushAfterWrite) {
        this.flushAfterWrite = false;
        this.flush();
      }
    });
  }

  private takePending(): string {
    const text = this.pendingLines.join("\n") + "\n";
    this.pendingLines = [];
    return text;
  }

  private add(e: TraceEntry): void {
    this.addLine(JSON.stringify(e));
  }

  private addLine(raw: string, frames = 1): void {
    this.keep(this.redactor.json(raw), frames);
  }

  /** A redacted line into the ring and the file's next batch. */
  private keep(line: string, frames = 1): void {
    this.ring.push(line);
    this.frames.push(frames);
    this.ringChars += line.length;
    this.ringFrames += frames;
    // Bounded by frames and by size (a line of a run of chunks holds hundreds of them).
    while (
      this.ring.length - this.first > 1 &&
      (this.ringFrames > this.maxEntries || this.ringChars > MAX_RING_CHARS)
    ) {
      this.ringChars -= this.ring[this.first]!.length;
      this.ringFrames -= this.frames[this.first]!;
      this.ring[this.first++] = undefined;
    }
    if (this.first > 1024 && this.first * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.first);
      this.frames = this.frames.slice(this.first);
      this.first = 0;
    }
    if (this.file) {
      this.pendingLines.push(line);
      // Batched: a flood of chunks must not mean a flood of syscalls.
      this.flushTimer ??= setTimeout(() => this.writeBatch(), BATCH_MS);
    }
  }
}

/** The name of a trace file this plugin writes: `<ISO time with - for : and .>-chat<id>[-<agent>].jsonl`. */
const TRACE_NAME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:-\d{3}Z)?-chat\d+(?:-[^/\\]*)?\.jsonl$/;

/** Whether `name` is one of the plugin's trace files (only those are ever pruned). */
export function isTraceFile(name: string): boolean {
  return TRACE_NAME.test(name);
}

/**
 * Keep the newest `keep` trace files of a folder (their names start with an ISO time, so they
 * sort by age); traces are for diagnosis, not an archive. Only regular files named the way this
 * plugin names its traces are counted or deleted: other `*.jsonl` files in the same folder (the
 * user's, another tool's) are never touched.
 */
export function pruneTraces(dir: string, keep = 50): void {
  try {
    const files = readdirSync(dir, { withFileTypes: true })
      .filter((f) => f.isFile() && isTraceFile(f.name))
      .map((f) => f.name)
      .sort();
    for (const f of files.slice(0, Math.max(0, files.length - keep))) unlinkSync(join(dir, f));
  } catch {
    // A missing or unreadable folder has nothing to prune.
  }
}

/** Characters a secret hint is made of (see hasSecretHint). */
const HINT_CHAR = /[A-Za-z0-9_\- ]/;

/** Whether a hint could run across the seam of `a + b`. */
function seam(a: string, b: string): boolean {
  return a.length > 0 && b.length > 0 && HINT_CHAR.test(a[a.length - 1]!) && HINT_CHAR.test(b[0]!);
}

function clip(payload: unknown): unknown {
  const s = typeof payload === "string" ? payload : JSON.stringify(payload);
  if (s === undefined || s.length <= MAX_PAYLOAD_CHARS) return payload;
  return `${s.slice(0, MAX_PAYLOAD_CHARS)}… (${s.length} chars, cut)`;
}

/** clip() of a message, redacted before it is cut: a secret cut in two would not be found after. */
function clipRedacted(payload: unknown, redactor: Redactor): unknown {
  const s = JSON.stringify(payload);
  if (s === undefined || s.length <= MAX_PAYLOAD_CHARS) return payload;
  return clip(redactor.json(s));
}
