/**
 * The EditorPort on Neovim: the effects at the edge of the write path. What a read or a write
 * does is decided in src/workspace/ (write-plan.ts, pure); this adapter only gathers the state
 * it decides on (a buffer's state through the bridge's primitives, or the disk), carries out
 * the action, and asks the user through the bridge without waiting on Lua (see contract.ts).
 */
import { basename } from "node:path";
import type { EditorPort, PermissionAnswer } from "../client/editor-port.js";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import type {
  AuthMethod,
  CreateElicitationRequest,
  ElicitationResponse,
  ReadTextFileRequest,
  RequestPermissionRequest,
  WriteTextFileRequest,
} from "../protocol/schema.js";
import { compactInput, oneLine } from "../render/view-model.js";
import { rememberOldSide, summarizeDiff } from "../render/diff-summary.js";
import { authChoices, formContent, formView, urlView, type FormView } from "../render/question-view.js";
import { Redactor } from "../trace/redact.js";
import {
  DEFAULT_MAX_READ_BYTES,
  diskSnapshot,
  stillIs,
  writeIfUnchanged,
  type DiskSnapshot,
} from "../workspace/disk.js";
import { readFileWindow, textWindow } from "../workspace/files.js";
import { resolveThroughLinks } from "../workspace/path-boundary.js";
import { sameText, joinText } from "../workspace/text-codec.js";
import {
  acceptedHunks,
  approvalCovers,
  bufferText,
  commitFor,
  currentText,
  decideSync,
  decideWrite,
  hasNul,
  rebase,
  reviewQuestion,
  type BufferState,
  type Commit,
  type Current,
  type WriteMode,
} from "../workspace/write-plan.js";
import type { Bridge } from "./bridge.js";
import { readBuffer } from "./buffer-reader.js";
import { liveFiles } from "./live-files.js";
import { PartialEdits } from "./permission-review.js";
import type { QuestionKind } from "./contract.js";
import type { Questions } from "./questions.js";

export type { WriteMode };

/** What a write did, for the agent's response and the user. */
export interface WriteOutcome {
  written: "buffer" | "disk" | "nothing";
  /** The buffer was also written to disk (write mode "save"). */
  saved?: boolean;
  /** Hunks of the proposal that were accepted, of how many (after a review). */
  accepted?: number;
  hunks?: number;
  message: string;
}

interface Approval {
  path: string;
  oldText?: string | null;
  newText: string;
}

/** How many answered rounds a write may take (a review shown again after a concurrent change). */
const MAX_ROUNDS = 4;

/** A diff as a tool call carries it (ACP `diff` content). */
export interface ToolDiff {
  path: string;
  oldText?: string | null;
  newText: string;
}

/** How many old sides of diffs are kept (the most recent tool calls'). */
const MAX_OLD_SIDES = 128;

export class NvimPort implements EditorPort {
  /** Edits the user approved in a permission prompt's diff, waiting for their write. */
  private approvals: Approval[] = [];
  /** Edits reviewed hunk by hunk in a permission question, waiting for their write or their tool call's end. */
  private readonly partials = new PartialEdits();
  /** Hides secrets in the agent's questions: the chat's (set by its host), else key-like values only. */
  redactor = new Redactor();
  /**
   * The old side of diffs sent without one (claude-agent-acp and claude-code-acp send
   * `oldText: null` for edits of existing files), read when the diff was first seen: before
   * the agent writes. Keyed by tool call id and path; undefined: no such file (a new one).
   */
  private readonly oldSides = new Map<string, Promise<string | undefined>>();
  /** The session's boundary (set by the host): the old side is read only for files inside it. */
  inside: ((path: string) => string) | undefined;

  constructor(
    private readonly bridge: Bridge,
    private readonly questions: Questions,
    private readonly chatId: number,
    private readonly maxReadBytes = DEFAULT_MAX_READ_BYTES,
    private readonly writeMode: WriteMode = "review",
  ) {}

  private ask<T>(kind: QuestionKind, question: unknown, signal: AbortSignal): Promise<T | undefined> {
    return this.questions.ask<T>(this.chatId, kind, question, signal);
  }

  /** fs/read_text_file: the buffer (unsaved edits included) when the file is loaded, else the disk. */
  async readTextFile(req: ReadTextFileRequest): Promise<{ content: string }> {
    const first = req.line ? Math.max(0, req.line - 1) : 0;
    const last = req.limit ? first + req.limit : undefined;
    const r = await readBuffer(this.bridge, req.path, { first, last });
    if (!r.loaded) return { content: await readFileWindow(req.path, req.line, req.limit, this.maxReadBytes) };
    if (r.empty) return { content: "" };
    if (hasNul(r.lines))
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `${req.path} looks binary (its buffer holds NUL bytes); only text files can be read`,
      );
    // The window as a text of its own: it ends with the buffer's final newline if it reaches the end.
    const reachesEnd = first + r.lines.length >= r.lineCount;
    const eol = reachesEnd && bufferText(r).eol;
    return { content: textWindow({ lines: r.lines, eol }, req.line ? 1 : null, req.limit) };
  }

  /** What the file is now: its buffer when loaded (with the disk too, for "save"), else the disk. */
  private async current(path: string, withDisk: boolean): Promise<Current> {
    const r = await readBuffer(this.bridge, path);
    if (r.loaded) {
      const { loaded: _, lineCount: __, ...buffer } = r;
      const disk = withDisk ? await diskSnapshot(path, this.maxReadBytes).catch(() => undefined) : undefined;
      return { kind: "buffer", buffer: buffer as BufferState, disk };
    }
    return { kind: "disk", disk: await diskSnapshot(path, this.maxReadBytes) };
  }

  /**
   * fs/write_text_file, one step: the state is gathered, write-plan.ts decides (refuse, nothing
   * to do, review, or commit), and the commit lands only if the text is still the one it was
   * computed against. When the text changed under an answered review (the user typed, the
   * disk changed), the accepted changes are carried over to the new text and shown again; if
   * they cannot be, nothing is written and both the agent and the user are told.
   */
  async writeTextFile(req: WriteTextFileRequest, signal: AbortSignal): Promise<WriteOutcome> {
    const outcome = await this.write(req, signal);
    // Truthful: content the agent asked to save that is not on disk is not a success.
    // With "review", an accepted change that could not be saved waits in the buffer (said in words).
    if (outcome.saved === false && this.writeMode === "save")
      throw new RpcError(ErrorCodes.InternalError, outcome.message);
    return outcome;
  }

  /** A write, with what it did. */
  async write(req: WriteTextFileRequest, signal: AbortSignal): Promise<WriteOutcome> {
    const path = req.path;
    let content = req.content;
    let refresh = false;
    // Reviewed hunk by hunk in the permission question: only the accepted hunks are written.
    const partial = this.partials.forWrite(path, content);
    // Rejected whole in the review of a call that was allowed for another file's sake.
    if (partial && partial.edit.accepted === 0)
      throw new RpcError(
        ErrorCodes.InternalError,
        `The user rejected the change to ${path} in the permission review; nothing was written`,
      );
    if (partial) content = partial.content;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.current(path, this.writeMode !== "buffer");
      const now = currentText(current);
      // Approved in the permission review only when the write is what was shown there.
      const approved =
        (partial?.exact === true && round === 0) ||
        (!refresh && now !== undefined && this.takeApproval(path, now, content));
      const plan = decideWrite({ path, content, current, mode: this.writeMode, approved, refresh });
      if (plan.action === "refuse") throw new RpcError(ErrorCodes.InternalError, plan.message);
      if (plan.action === "unchanged")
        return { written: "nothing", message: `${path} already has this content; nothing to write` };
      let commit: Commit;
      let accepted: number | undefined;
      const total = plan.prepared.diff.hunks.length;
      if (plan.action === "review") {
        const answer = await this.ask<unknown>("review", reviewQuestion(plan.prepared, plan.reason), signal);
        if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, `the write to ${path} was cancelled`);
        const chosen = acceptedHunks(plan.prepared.diff.hunks, answer);
        if (chosen.length === 0)
          throw new RpcError(ErrorCodes.InternalError, `The user rejected the change to ${path}; nothing was written`);
        commit = commitFor(plan.prepared, chosen);
        accepted = chosen.length;
      } else {
        commit = plan.commit;
      }
      const done = await this.perform(commit);
      const why =
        current.kind === "buffer" && current.buffer.modified
          ? "its buffer holds the user's own unsaved edits"
          : this.writeMode === "buffer"
            ? 'the client writes to buffers only (write = "buffer")'
            : "the file changed on disk behind its buffer";
      if (done)
        return {
          ...done,
          accepted,
          hunks: plan.action === "review" ? total : undefined,
          message: describe(path, done, accepted, total, why),
        };
      if (plan.action !== "review") continue; // raced with a change: decide again on the new text
      // The text changed while the user reviewed: carry what they accepted over to it.
      const fresh = currentText(await this.current(path, false));
      const merged = fresh && rebase(commit.base.text, commit.result, fresh);
      if (!merged) {
        const why = `${path} changed while its review was open, in the same lines as the agent's change; nothing was written`;
        // The note leads with what happened: a narrow command line keeps only its start.
        this.bridge.emit("notify", {
          message: `acpchat: not written, the agent was told: ${basename(path)} changed in the same lines during the review`,
          level: "warn",
        });
        throw new RpcError(ErrorCodes.InternalError, `${why}. Read the file again and redo the change.`);
      }
      if (sameText(merged, fresh))
        return { written: "nothing", message: `${path} already has the accepted changes; nothing to write` };
      content = joinText(merged);
      refresh = true;
    }
    throw new RpcError(
      ErrorCodes.InternalError,
      `${path} kept changing while it was being written; nothing was written`,
    );
  }

  /** Carry out a commit; undefined when the text is no longer the one it was computed against. */
  private async perform(c: Commit): Promise<Omit<WriteOutcome, "message"> | undefined> {
    if (c.to === "buffer") {
      const r = await this.bridge.request("bufferApply", { path: c.path, tick: c.tick, edits: c.edits, eol: c.eol });
      if (r.result !== "applied") return undefined;
      if (!c.save) return { written: "buffer" };
      // Vim's :write would ask (y/n) when the file's time changed, and stop the editor: Node
      // checks the disk instead, right before the save, which then skips Vim's check.
      if (c.expectedDisk && !(await stillIs(c.path, c.expectedDisk, this.maxReadBytes))) {
        return {
          written: "buffer",
          saved: false,
          error: `${c.path} changed on disk meanwhile; the change is in the buffer, not saved`,
        } as Omit<WriteOutcome, "message">;
      }
      const s = await this.bridge.request("bufferSave", { path: c.path, tick: r.tick });
      if (s.result === "saved") return { written: "buffer", saved: true };
      return { written: "buffer", saved: false, ...("error" in s ? { error: s.error } : {}) } as Omit<
        WriteOutcome,
        "message"
      >;
    }
    // A buffer opened on the file meanwhile holds the editor's text now: decide again.
    const b = await this.bridge.request("bufferState", { path: c.path, first: 0, last: 0 });
    if (b.loaded) return undefined;
    const w = await writeIfUnchanged(c.path, c.bytes, c.expected, this.maxReadBytes);
    if (w.result === "changed") return undefined;
    this.bridge.emit("reload", { path: c.path });
    return { written: "disk" };
  }

  /** Take (once) an approval that covers exactly this write. */
  private takeApproval(path: string, now: ReturnType<typeof currentText> & object, content: string): boolean {
    const i = this.approvals.findIndex((a) => a.path === path && approvalCovers(a, now, content));
    if (i < 0) return false;
    this.approvals.splice(i, 1);
    return true;
  }

  /**
   * After a tool call that touched these files ended: buffers that fell behind the disk (the
   * agent wrote the file itself) are reloaded when they hold no edits of the user's; with
   * edits, the user gets one review of their buffer against the disk and chooses. Resolves
   * when every file is settled (a question answered, or withdrawn by `signal`).
   */
  async syncBuffers(paths: readonly string[], signal: AbortSignal): Promise<void> {
    for (const path of new Set(paths)) {
      const st = await readBuffer(this.bridge, path, { probeDisk: true });
      if (!st.loaded) continue;
      let disk: DiskSnapshot;
      try {
        disk = await diskSnapshot(path, this.maxReadBytes);
      } catch {
        continue;
      }
      const { loaded: _, lineCount: __, ...buffer } = st;
      const plan = decideSync(path, buffer as BufferState, disk);
      if (plan.action === "reload") await this.bridge.request("bufferReload", { path });
      if (plan.action !== "review") continue;
      const answer = await this.ask<unknown>("review", reviewQuestion(plan.prepared, "disk"), signal);
      if (answer === undefined || signal.aborted) continue;
      const chosen = acceptedHunks(plan.prepared.diff.hunks, answer);
      const c = commitFor(plan.prepared, chosen);
      if (c.to !== "buffer") continue;
      const markSaved = sameText(c.result, plan.prepared.next);
      const r = await this.bridge.request("bufferApply", {
        path,
        tick: c.tick,
        edits: c.edits,
        eol: c.eol,
        acknowledgeDisk: true,
        markSaved,
      });
      if (r.result !== "applied")
        this.bridge.emit("notify", {
          message: `acpchat: ${path} changed while you compared it with the disk; nothing was taken from the disk`,
          level: "warn",
        });
    }
  }

  /** The text of a file as the editor sees it: its buffer (unsaved edits too) when loaded, else the disk; undefined when there is no such text file. */
  private async textNow(path: string): Promise<string | undefined> {
    const r = await readBuffer(this.bridge, path).catch(() => undefined);
    if (r?.loaded) return hasNul(r.lines) ? undefined : joinText(bufferText(r as BufferState));
    const d = await diskSnapshot(path, this.maxReadBytes).catch(() => undefined);
    return d?.exists && d.file ? joinText(d.file) : undefined;
  }

  /**
   * A tool call's diffs were seen (an update, or a permission question): for each without old
   * text, the file's text is read now, before the agent writes it, as the diff's old side.
   */
  noteDiffs(toolCallId: string, diffs: readonly ToolDiff[]): void {
    for (const d of diffs) {
      const key = `${toolCallId}\u0000${d.path}`;
      if (d.oldText != null || this.oldSides.has(key)) continue;
      let path: string;
      try {
        path = this.inside ? this.inside(d.path) : d.path;
      } catch {
        continue; // outside the session's folders: never read
      }
      const old = this.textNow(path);
      this.oldSides.set(key, old);
      // The transcript's figures of this diff (drawn again on the tool call's next update).
      void old.then((text) => text !== undefined && text !== d.newText && rememberOldSide(d.path, d.newText, text));
      if (this.oldSides.size > MAX_OLD_SIDES) this.oldSides.delete(this.oldSides.keys().next().value!);
    }
  }

  /**
   * The diffs with their old sides: a diff without old text for a file that existed when it
   * was first seen (noteDiffs) is a diff against that text (the buffer, or the disk), not a new
   * file. One never noted stays as the agent sent it: read now, the file may be written already.
   */
  async resolveDiffs(toolCallId: string, diffs: readonly ToolDiff[]): Promise<ToolDiff[]> {
    return Promise.all(
      diffs.map(async (d) => {
        if (d.oldText != null) return d;
        const old = await this.oldSides.get(`${toolCallId}\u0000${d.path}`);
        // The same text: read after the write after all (nothing to compare against).
        return old === undefined || old === d.newText ? d : { ...d, oldText: old };
      }),
    );
  }

  /** Which of these files have a loaded buffer with unsaved edits. */
  async unsavedBuffers(paths: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const path of paths) {
      const r = await this.bridge.request("bufferState", { path, first: 0, last: 0 });
      if (r.loaded && r.modified) out.push(path);
    }
    return out;
  }

  async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const tc = req.toolCall;
    const asked = (tc.content ?? []).flatMap((c) => (c.type === "diff" ? [c] : []));
    // Asked before the write: a diff not seen in an update yet gets its old side now.
    this.noteDiffs(tc.toolCallId, asked);
    const resolved = await this.resolveDiffs(tc.toolCallId, asked);
    // What the question shows of each diff: its path and counts. The texts stay here: "Show the
    // diff first" is the per-hunk review, which gets them (a 16 MiB diff crossing twice, in
    // one event each time, would hold the editor).
    const diffs = resolved.map((c) => ({ path: c.path, ...summarizeDiff(c.oldText, c.newText, c.path) }));
    const question = {
      title: tc.title ?? tc.toolCallId,
      kind: tc.kind ?? "other",
      tool_call_id: tc.toolCallId,
      locations: (tc.locations ?? []).map((l) => (l.line ? `${l.path}:${l.line}` : l.path)),
      input: compactInput(tc.rawInput),
      diffs,
      options: req.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind })),
    };
    // The answer names the chosen option by its position in `options` (1-based, as Lua counts),
    // or asks for the per-hunk review, which then is the answer (src/nvim/permission-review.ts).
    const a = await this.ask<{ option?: unknown; remember?: unknown; review?: unknown }>(
      "permission",
      question,
      signal,
    );
    if (a?.review === true)
      return this.partials.review(req, liveFiles(this.bridge), (q) => this.ask("review", q, signal));
    const index = typeof a?.option === "number" && Number.isInteger(a.option) ? a.option - 1 : -1;
    const chosen = req.options[index];
    if (!chosen) return { outcome: "cancelled" };
    const remember = a?.remember === "session" || a?.remember === "project" ? a.remember : undefined;
    // The user saw these diffs and allowed them: the writes that carry out exactly these edits
    // are not asked about again.
    const kind = chosen.kind;
    if (kind === "allow_once" || kind === "allow_always") {
      for (const c of resolved) {
        let path = c.path;
        try {
          path = resolveThroughLinks(c.path);
        } catch {
          // keep the path as the agent gave it
        }
        this.approvals.push({ path, oldText: c.oldText, newText: c.newText });
      }
      if (this.approvals.length > 32) this.approvals.splice(0, this.approvals.length - 32);
    }
    return { outcome: "selected", optionId: chosen.optionId, index, remember };
  }

  /** A tool call ended: the hunks the user rejected in its permission review are put back (what was done, for the transcript and the agent). */
  async toolCallEnded(toolCallId: string, check: (abs: string) => void): Promise<string[]> {
    return this.partials.afterToolCall(toolCallId, liveFiles(this.bridge), check);
  }

  async chooseAuthMethod(methods: AuthMethod[], signal: AbortSignal): Promise<string | undefined> {
    // Shown redacted, one line each; the answer is the method's position (1-based).
    const i = await this.ask<unknown>("auth", { how: "choose", methods: authChoices(methods, this.redactor) }, signal);
    return typeof i === "number" && Number.isInteger(i) ? methods[i - 1]?.id : undefined;
  }

  async runAuthTerminal(
    spec: { command: string; args: string[]; env: Record<string, string>; cwd: string; title: string },
    signal: AbortSignal,
  ): Promise<void> {
    // The title is the method's name, shown as the terminal's buffer name: redacted, one line.
    const title = oneLine(this.redactor.text(spec.title), 80);
    await this.ask<number>(
      "auth",
      { how: "terminal", ...spec, title, env: Object.entries(spec.env).map(([name, value]) => ({ name, value })) },
      signal,
    );
  }

  /**
   * elicitation/create: a form asked field by field, or a URL opened after the user agrees.
   * What is shown is built by question-view.ts (redacted, one line, refused when malformed);
   * the answer comes back by position and the agent gets the values it offered.
   */
  async elicit(req: CreateElicitationRequest, signal: AbortSignal): Promise<ElicitationResponse> {
    let question: ReturnType<typeof urlView> | FormView["shown"] | { mode: "other" };
    let form: FormView | undefined;
    try {
      if (req.mode === "url") question = urlView(req, this.redactor);
      else if (req.mode === "form") question = (form = formView(req, this.redactor)).shown;
      else question = { mode: "other" };
    } catch (e) {
      this.bridge.emit("notify", {
        message: `acpchat: refused a question from the agent: ${(e as Error).message.replace(/^Invalid params for elicitation\/create: /, "")}`,
        level: "warn",
      });
      throw e;
    }
    const a = await this.ask<{ action?: unknown; answers?: unknown }>("elicitation", question, signal);
    if (a?.action === "decline") return { action: "decline" };
    if (a?.action !== "accept") return { action: "cancel" };
    if (!form) return { action: "accept" };
    const content = formContent(form, a.answers);
    return content ? { action: "accept", content } : { action: "cancel" };
  }
}

/** What a write did, in words: the agent reads this (not _meta), so a change not on disk says so. */
function describe(
  path: string,
  done: Omit<WriteOutcome, "message"> & { error?: string },
  accepted: number | undefined,
  total: number,
  why: string,
): string {
  const part =
    accepted !== undefined && accepted < total
      ? ` (the user accepted ${accepted} of ${total} hunks; the rest was not written)`
      : "";
  if (done.written === "disk") return `wrote ${path}${part}`;
  if (done.saved) return `applied to the buffer of ${path} and saved${part}`;
  const waits =
    "The change waits in the editor's buffer, unsaved: the file on disk, which commands and tests read, still has the old content until the user saves it.";
  if (done.saved === false)
    return `applied to the buffer of ${path}, but not saved: ${done.error ?? "the write failed"}${part}. ${waits}`;
  return `applied to the buffer of ${path}, not saved (${why})${part}. ${waits}`;
}
