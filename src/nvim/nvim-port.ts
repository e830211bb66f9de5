/**
 * The EditorPort on Neovim: the effects at the edge of the write path. What a write does is
 * decided and carried out in src/workspace/ (write-plan.ts, pure; write-loop.ts, its rounds
 * over a BufferPort); this adapter gives it Neovim's buffers through the bridge's primitives,
 * reads files for the agent, and asks the user through the bridge without waiting on Lua
 * (see contract.ts): permission questions, sign-in, forms.
 */
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
import { compactInput } from "../view/view-model.js";
import { oneLine } from "../session/one-line.js";
import { rememberOldSide, summarizeDiff } from "../view/diff-summary.js";
import { authChoices, formContent, formView, urlView, type FormView } from "../view/question-view.js";
import { Redactor } from "../trace/redact.js";
import { DEFAULT_MAX_READ_BYTES, diskSnapshot } from "../workspace/disk.js";
import { readFileWindow } from "../workspace/files.js";
import { joinText, type Text } from "../workspace/text-codec.js";
import { AgentSeen } from "../workspace/agent-seen.js";
import { writesEol, type WriteMode } from "../workspace/write-plan.js";
import { WriteLoop, type BufferPort, type WriteOutcome } from "../workspace/write-loop.js";
import type { Bridge } from "./bridge.js";
import { readBuffer, readBufferText, unnumberedLines } from "./buffer-reader.js";
import { liveFiles } from "./live-files.js";
import { PartialEdits } from "../session/permission/review.js";
import { permissionMeta } from "../protocol/v2/meta.js";
import type { PermissionQuestion, QuestionKind, QuestionMap, ReviewAnswer, ReviewQuestion } from "../wire/index.js";
import type { Questions } from "./questions.js";

export type { WriteMode, WriteOutcome };

/** A diff as a tool call carries it (ACP `diff` content). */
export interface ToolDiff {
  path: string;
  oldText?: string | null;
  newText: string;
}

/** How many old sides of diffs are kept (the most recent tool calls'). */
const MAX_OLD_SIDES = 128;

export class NvimPort implements EditorPort {
  /** Writes and syncs over the editor's buffers (src/workspace/write-loop.ts). */
  private readonly writer: WriteLoop;
  /** Edits reviewed hunk by hunk in a permission question, waiting for their write or their tool call's end. */
  private readonly partials: PartialEdits;
  /** What the agent last read or wrote of each file (a write over unsaved edits builds from it). */
  private readonly seen = new AgentSeen();
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
  ) {
    this.partials = new PartialEdits(maxReadBytes);
    this.writer = new WriteLoop(
      nvimBuffers(bridge, (q, signal) => this.ask("review", q, signal)),
      writeMode,
      maxReadBytes,
    );
  }

  private ask<K extends QuestionKind>(
    kind: K,
    question: QuestionMap[K]["question"],
    signal: AbortSignal,
  ): Promise<QuestionMap[K]["answer"] | undefined> {
    return this.questions.ask(this.chatId, kind, question, signal);
  }

  /** fs/read_text_file: the buffer (unsaved edits included) when the file is loaded, else the disk. */
  async readTextFile(
    req: ReadTextFileRequest,
    _signal?: AbortSignal,
    by?: { agent: boolean; numbered?: boolean },
  ): Promise<{ content: string; unsaved?: boolean; numbered?: boolean }> {
    // The agent's own reads (not the client's, for a question's diff) say what it builds on.
    const saw = (modified: boolean, text: Text | (() => Text) | null, lines?: number) => {
      if (by?.agent) this.seen.read(req.sessionId, req.path, { modified, text, lines });
    };
    const first = req.line ? Math.max(0, req.line - 1) : 0;
    const last = req.limit ? first + req.limit : undefined;
    // The window as one text, as Neovim joined it: never split into lines and joined again here.
    const r = await readBufferText(this.bridge, req.path, {
      first,
      last,
      numberFrom: by?.numbered ? first + 1 : undefined,
    });
    if (!r.loaded) {
      const content = await readFileWindow(req.path, req.line, req.limit, this.maxReadBytes);
      saw(false, null);
      return { content, unsaved: false };
    }
    if (r.empty) {
      saw(r.modified, first === 0 ? { lines: [], eol: false } : null);
      return { content: "", unsaved: r.modified };
    }
    if (r.text === null)
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `${req.path} looks binary (its buffer holds NUL bytes); only text files can be read`,
      );
    // The window ends with the buffer's final newline if it reaches the end and no limit cut it.
    const reachesEnd = first + r.count >= r.lineCount;
    const eol = reachesEnd && writesEol(r);
    // What the agent builds on: a later write over the user's edits is put on top of them.
    if (by?.agent && r.modified && first === 0 && reachesEnd) {
      const text = r.text;
      const lines = r.numbered ? () => unnumberedLines(text) : () => text.split("\n");
      saw(true, () => ({ lines: lines(), eol }), r.count);
    } else saw(r.modified, null);
    if (r.count === 0) return { content: "", unsaved: r.modified };
    const numbered = r.numbered || undefined;
    return { content: eol && !req.limit ? `${r.text}\n` : r.text, unsaved: r.modified, numbered };
  }

  /**
   * fs/write_text_file, one step: the state is gathered, write-plan.ts decides (refuse, nothing
   * to do, review, or commit), and the commit lands only if the text is still the one it was
   * computed against. When the text changed under an answered review (the user typed, the
   * disk changed), the accepted changes are carried over to the new text and shown again; if
   * they cannot be, nothing is written and both the agent and the user are told.
   */
  async writeTextFile(req: WriteTextFileRequest, signal: AbortSignal): Promise<WriteOutcome> {
    const path = req.path;
    // Reviewed hunk by hunk in the permission question: only the accepted hunks are written.
    const partial = this.partials.forWrite(path, req.content);
    // Rejected whole in the review of a call that was allowed for another file's sake.
    if (partial && partial.edit.accepted === 0)
      throw new RpcError(
        ErrorCodes.InternalError,
        `The user rejected the change to ${path} in the permission review; nothing was written`,
      );
    const outcome = await this.writer.write(
      path,
      req.content,
      partial && { content: partial.content, exact: partial.exact, before: partial.edit.before },
      signal,
      {
        saw: this.seen.get(req.sessionId, path),
        wrote: (text) => this.seen.wrote(req.sessionId, path, text),
        forget: () => this.seen.read(req.sessionId, path, { modified: false, text: null }),
      },
    );
    // Truthful: content the agent asked to save that is not on disk is not a success.
    // With "review", an accepted change that could not be saved waits in the buffer (said in words).
    if (outcome.saved === false && this.writeMode === "save")
      throw new RpcError(ErrorCodes.InternalError, outcome.message);
    return outcome;
  }

  /**
   * After a tool call that touched these files ended: buffers that fell behind the disk (the
   * agent wrote the file itself) are reloaded when they hold no edits of the user's; with
   * edits, the user gets one review of their buffer against the disk and chooses.
   */
  syncBuffers(
    paths: readonly string[],
    signal: AbortSignal,
    before?: (abs: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    return this.writer.syncBuffers(paths, signal, before);
  }

  /** The text of a file as the editor sees it: its buffer (unsaved edits too) when loaded, else the disk; undefined when there is no such text file. */
  private async textNow(path: string): Promise<string | undefined> {
    const r = await readBufferText(this.bridge, path).catch(() => undefined);
    if (r?.loaded) return r.text === null ? undefined : r.empty ? "" : r.text + (writesEol(r) ? "\n" : "");
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
    // ACP v2: the request's own title and description; the tool call it is about, apart.
    const own = permissionMeta(req._meta);
    const question: PermissionQuestion = {
      title: own?.title ?? tc.title ?? tc.toolCallId,
      ...(own?.title ? { ownTitle: true } : {}),
      ...(own?.title && tc.title && own.title !== tc.title ? { subject: tc.title } : {}),
      ...(own?.description ? { description: own.description } : {}),
      kind: tc.kind ?? "other",
      toolCallId: tc.toolCallId,
      locations: (tc.locations ?? []).map((l) => (l.line ? `${l.path}:${l.line}` : l.path)),
      input: compactInput(tc.rawInput),
      diffs,
      options: req.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind })),
    };
    // The answer names the chosen option by its position in `options` (1-based, as Lua counts),
    // or asks for the per-hunk review, which then is the answer (src/session/permission/review.ts).
    const a = await this.ask("permission", question, signal);
    if (a?.review === true)
      return this.partials.review(req, liveFiles(this.bridge), (q) => this.ask("review", q, signal));
    const index = typeof a?.option === "number" && Number.isInteger(a.option) ? a.option - 1 : -1;
    const chosen = req.options[index];
    if (!chosen) return { outcome: "cancelled" };
    const remember = a?.remember === "session" || a?.remember === "project" ? a.remember : undefined;
    // "Allow" saw counts, not the diff: the write that follows is decided as any other
    // (reviewed in write mode "review" and over unsaved edits; write-plan.ts).
    return { outcome: "selected", optionId: chosen.optionId, index, remember };
  }

  /** A tool call ended: the hunks the user rejected in its permission review are put back (what was done, for the transcript and the agent). */
  async toolCallEnded(toolCallId: string, check: (abs: string) => void): Promise<string[]> {
    return this.partials.afterToolCall(toolCallId, liveFiles(this.bridge), check);
  }

  async chooseAuthMethod(methods: AuthMethod[], signal: AbortSignal): Promise<string | undefined> {
    // Shown redacted, one line each; the answer is the method's position (1-based).
    const i = await this.ask("auth", { how: "choose", methods: authChoices(methods, this.redactor) }, signal);
    return typeof i === "number" && Number.isInteger(i) ? methods[i - 1]?.id : undefined;
  }

  async runAuthTerminal(
    spec: { command: string; args: string[]; env: Record<string, string>; cwd: string; title: string },
    signal: AbortSignal,
  ): Promise<void> {
    // The title is the method's name, shown as the terminal's buffer name: redacted, one line.
    const title = oneLine(this.redactor.text(spec.title), 80);
    await this.ask(
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
    let question: QuestionMap["elicitation"]["question"];
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
    const a = await this.ask("elicitation", question, signal);
    if (a?.action === "decline") return { action: "decline" };
    if (a?.action !== "accept") return { action: "cancel" };
    if (!form) return { action: "accept" };
    const content = formContent(form, a.answers);
    return content ? { action: "accept", content } : { action: "cancel" };
  }
}

/** The write loop's BufferPort over Neovim's buffers: the bridge's buffer primitives (contract.ts). */
function nvimBuffers(
  bridge: Bridge,
  review: (question: ReviewQuestion, signal: AbortSignal) => Promise<ReviewAnswer | undefined>,
): BufferPort {
  return {
    // Whole buffers are read in slices (buffer-reader.ts); a one-line probe is one request.
    state: ({ path, ...opts }) =>
      opts.first === 0 && opts.last === 0
        ? bridge.request("bufferState", { path, ...opts })
        : readBuffer(bridge, path, opts),
    apply: (p) => bridge.request("bufferApply", p),
    save: (p) => bridge.request("bufferSave", p),
    reload: (p) => bridge.request("bufferReload", p),
    diskChanged: (path) => bridge.emit("reload", { path }),
    review,
    warn: (message) => bridge.emit("notify", { message: `acpchat: ${message}`, level: "warn" }),
  };
}
