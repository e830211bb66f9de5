/**
 * Coalesces transcript events into render batches: at most one batch per frame (~16 ms), and one
 * at once when a turn ends. Agents send hundreds of tiny chunks a second; the editor should get
 * one message per frame that appends their concatenation, and redraws a tool call once however
 * many updates it had in that frame.
 *
 * Coalescing is for load only: when the editor is idle (no batch for a frame), what arrives goes
 * out as soon as the reads at hand are handled (setImmediate: after the rest of the pipe's data
 * already there, not a timer tick later), and the batch that begins a burst holds the next one
 * back only in proportion to the work it gave the editor: QUICK_MS for a light one (the status,
 * the user's words, the first chunks), a frame for a full one (its budget of text, or
 * FRAME_BLOCKS blocks). Only from the third batch of a burst on does the frame rate pace them,
 * so a small reply that comes in two reads is on screen in the frame it arrives, and slicing
 * starts only when there is more than a frame's work.
 *
 * A reply line that grows very long (an agent streaming minified text) costs Neovim its whole
 * length to redraw after every batch, and its end is out of view anyway (the window shows the
 * line from its start): while only such appends (and redraws of blocks already drawn: a tool
 * call's progress) are pending, batches come less often, in proportion to the line's length
 * (two frames at most), so that the editor's share of work per character stays small. Anything
 * else (a new block, a status, the turn's end) is sent at the frame rate.
 *
 * A batch carries at most a budget of text (bytes and lines: src/view/text-slice.ts); the
 * rest waits, in order, for the next frame, and the turn's end waits for it: a 15 MB chunk
 * reaches the editor as many small batches, never as one that holds it.
 *
 * Ops (applied by Lua in order):
 *   {op:"add", block}            a new block at the end (its *current* content at flush time)
 *   {op:"append", id, text}      text at the end of the last block
 *   {op:"update", block}         redraw a block in place
 *   {op:"meta", status}          the winbar/status changed
 *   {op:"turn_end", stopReason}  the turn ended (fires AcpChatTurnEnd)
 *   {op:"reset"}                 a reloaded session replays the transcript: clear the view
 */
import type { Block, TranscriptEvent } from "../session/blocks.js";
import type { BlockView, RenderOp, StatusView } from "../wire/index.js";
import { blockView } from "./view-model.js";
import { cut, fullBudget, LINE_MAX_BYTES } from "./text-slice.js";

type Pending =
  | { kind: "add"; block: Block }
  | { kind: "append"; id: string; text: string }
  | { kind: "update"; block: Block };

export interface RenderQueueOptions {
  frameMs?: number;
  send: (ops: RenderOp[]) => void;
  status: () => StatusView;
  now?: () => number;
}

/** A last line longer than this (characters) makes batches of appends less frequent (see above). */
const LONG_LINE = 32 * 1024;
/** The longest wait between batches, however long the line. */
const MAX_WAIT_MS = 1000;
/** After a light batch that began a burst, the next one waits this long. */
const QUICK_MS = 2;
/** Blocks added or redrawn that make a frame's work (Lua draws a tool call's block in ~0.02-0.1 ms). */
const FRAME_BLOCKS = 128;

export class RenderQueue {
  private pending: Pending[] = [];
  private addedIds = new Set<string>();
  private updatedIds = new Set<string>();
  private meta = false;
  private turnEnd: string | undefined;
  private timer: { cancel: () => void } | undefined;
  /** When the timer fires. */
  private due = Infinity;
  /** Characters in the transcript's last line as far as the adds and appends tell. */
  private lastLine = 0;
  private lastFlush = -Infinity;
  /** What is pending arrived with the queue idle (nothing pending or due, no batch for a frame). */
  private fromIdle = false;
  /** The last batch began a burst: the share of a frame's work it was (the next waits that share of a frame). */
  private burstShare: number | undefined;
  /** The last batch left text for the next one (sent at the frame rate, whatever the line). */
  private sliced = false;
  /** Disposed: the chat closed or restarted, and nothing more goes out under its id. */
  private disposed = false;
  private readonly frameMs: number;
  private readonly now: () => number;
  /** Batches sent so far (the benchmark counts them). */
  batches = 0;

  constructor(private readonly opts: RenderQueueOptions) {
    this.frameMs = opts.frameMs ?? 16;
    this.now = opts.now ?? (() => performance.now());
  }

  push(events: TranscriptEvent[]): void {
    if (this.disposed) return;
    if (this.pending.length === 0 && !this.meta && !this.timer && this.now() - this.lastFlush > this.frameMs)
      this.fromIdle = true;
    for (const e of events) this.take(e);
    this.schedule();
  }

  /** The turn ended: send everything now, with the turn's end. */
  endTurn(stopReason: string): void {
    this.turnEnd = stopReason;
    this.meta = true;
    this.flush();
  }

  /** Send what is pending now, up to a batch's budget of text (also used on close). */
  flush(): void {
    if (this.disposed) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.due = Infinity;
    const ops: RenderOp[] = [];
    const budget = fullBudget();
    let sent = 0;
    while (sent < this.pending.length) {
      const p = this.pending[sent]!;
      if (p.kind === "update") {
        ops.push({ op: "update", block: blockView(p.block) });
        sent++;
        continue;
      }
      if (budget.bytes <= 0 || budget.lines <= 0) break;
      if (p.kind === "append") {
        const [head, rest] = cut(p.text, budget);
        ops.push({ op: "append", id: p.id, text: head });
        if (rest !== "") {
          this.pending[sent] = { kind: "append", id: p.id, text: rest };
          break;
        }
        sent++;
        continue;
      }
      const view = blockView(p.block);
      const text = (view as { text?: unknown }).text;
      // An added block's text is drawn whole by Lua: at most one line's worth of it (Lua breaks
      // only appended lines), the rest follows as appends.
      const first = { bytes: Math.min(budget.bytes, LINE_MAX_BYTES), lines: budget.lines };
      const [head, rest] = typeof text === "string" ? cut(text, first) : ["", ""];
      budget.bytes -= Math.min(budget.bytes, LINE_MAX_BYTES) - first.bytes;
      budget.lines = first.lines;
      if (rest === "") {
        ops.push({ op: "add", block: view });
        sent++;
        continue;
      }
      ops.push({ op: "add", block: { ...view, text: head } as BlockView });
      this.pending[sent] = { kind: "append", id: p.block.id, text: rest };
    }
    this.pending = this.pending.slice(sent);
    this.addedIds = new Set(this.pending.flatMap((p) => (p.kind === "add" ? [p.block.id] : [])));
    this.updatedIds = new Set(this.pending.flatMap((p) => (p.kind === "update" ? [p.block.id] : [])));
    const done = this.pending.length === 0;
    if (this.meta) ops.push({ op: "meta", status: this.opts.status() });
    this.meta = false;
    // The turn's end follows the last of its text.
    if (done && this.turnEnd !== undefined) {
      ops.push({ op: "turn_end", stopReason: this.turnEnd });
      this.turnEnd = undefined;
    }
    this.sliced = !done;
    if (ops.length > 0) {
      this.lastFlush = this.now();
      const blocks = ops.reduce((n, o) => n + (o.op === "add" || o.op === "update" ? 1 : 0), 0);
      const full = fullBudget();
      this.burstShare =
        this.fromIdle && done
          ? Math.min(
              1,
              Math.max(
                (full.bytes - budget.bytes) / full.bytes,
                (full.lines - budget.lines) / full.lines,
                blocks / FRAME_BLOCKS,
              ),
            )
          : undefined;
      this.fromIdle = false;
      this.batches++;
    }
    // The rest of the text: next frame.
    if (!done) this.schedule();
    if (ops.length > 0) this.opts.send(ops);
  }

  /**
   * The last batch went (close and restart flush first): what the chat still does while it
   * closes (its agent's exit, a status change) is not drawn, not even into a chat that later
   * has its id or into the next incarnation's view.
   */
  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private take(e: TranscriptEvent): void {
    switch (e.type) {
      case "meta":
        this.meta = true;
        return;
      case "add": {
        this.pending.push({ kind: "add", block: e.block });
        this.addedIds.add(e.block.id);
        const text = (e.block as { text?: unknown }).text;
        this.lastLine = typeof text === "string" ? text.length - text.lastIndexOf("\n") - 1 : 0;
        return;
      }
      case "append": {
        const nl = e.text.lastIndexOf("\n");
        this.lastLine = nl >= 0 ? e.text.length - nl - 1 : this.lastLine + e.text.length;
        if (this.addedIds.has(e.id)) return; // the add will carry the whole text
        const last = this.pending[this.pending.length - 1];
        if (last && last.kind === "append" && last.id === e.id) last.text += e.text;
        else this.pending.push({ kind: "append", id: e.id, text: e.text });
        return;
      }
      case "update":
        // Drawn once per batch, with its content at flush time.
        if (this.addedIds.has(e.block.id) || this.updatedIds.has(e.block.id)) return;
        this.updatedIds.add(e.block.id);
        this.pending.push({ kind: "update", block: e.block });
        return;
    }
  }

  private schedule(): void {
    let interval = this.frameMs;
    // The buffer's last line is at most LINE_MAX_BYTES long (Lua continues a longer one).
    const lastLine = Math.min(this.lastLine, LINE_MAX_BYTES);
    if (
      lastLine > LONG_LINE &&
      !this.sliced &&
      !this.meta &&
      this.turnEnd === undefined &&
      this.pending.every((p) => p.kind !== "add")
    ) {
      interval = Math.min(MAX_WAIT_MS, (this.frameMs * lastLine) / LONG_LINE);
    }
    // The batch that began a burst holds the next one its share of a frame.
    if (this.burstShare !== undefined)
      interval = Math.min(interval, Math.max(QUICK_MS, this.frameMs * this.burstShare));
    const due = this.lastFlush + interval;
    if (this.timer) {
      if (due >= this.due) return;
      this.timer.cancel();
    }
    this.due = due;
    const fire = () => {
      this.timer = undefined;
      this.flush();
    };
    const wait = due - this.now();
    // Due already (the editor idle): once the reads at hand are handled, not a timer tick later.
    if (wait <= 0) {
      const h = setImmediate(fire);
      this.timer = { cancel: () => clearImmediate(h) };
    } else {
      const h = setTimeout(fire, wait);
      this.timer = { cancel: () => clearTimeout(h) };
    }
  }
}
