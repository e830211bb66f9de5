/**
 * The EditorPort on Neovim: buffers first (with unsaved changes), disk second; questions asked
 * through Lua (vim.ui.select), whose answers come back through AcpChatNotify("answer").
 */
import type { Neovim } from "neovim";
import type { EditorPort } from "../client/editor-port.js";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import type {
  AuthMethod,
  CreateElicitationRequest,
  ElicitationResponse,
  PermissionOutcome,
  ReadTextFileRequest,
  RequestPermissionRequest,
  WriteTextFileRequest,
} from "../protocol/schema.js";
import { compactInput } from "../render/view-model.js";
import { notifyLua, requestLua } from "./lua-call.js";
import { summarizeDiff } from "../render/diff-summary.js";
import { DEFAULT_MAX_READ_BYTES, readFileWindow, writeFileAtomic } from "../workspace/files.js";
import { hunks } from "../render/diff-summary.js";

/** A question open in Lua (permission or review), answered through AcpChatNotify. */
interface Question {
  chatId: number;
  kind: "permission" | "review" | "auth" | "elicitation";
  resolve: (answer: unknown) => void;
}

const questions = new Map<string, Question>();
let nextKey = 0;

type BufferRead = { loaded: false } | { loaded: true; content: string };
type BufferState = { loaded: false } | { loaded: true; modified: boolean; text: string; tick: number };
type ApplyResult = { result: "applied" | "not_loaded" | "changed" };
type ReviewAnswer = { accepted: boolean; content?: string } | undefined;

/** How agent writes reach files: reviewed first, straight into the buffer, or also saved. */
export type WriteMode = "review" | "buffer" | "save";

export class NvimPort implements EditorPort {
  constructor(
    private readonly nvim: Neovim,
    private readonly chatId: number,
    private readonly maxReadBytes = DEFAULT_MAX_READ_BYTES,
    private readonly writeMode: WriteMode = "review",
  ) {}

  /** Lua answered a question (undefined: dismissed). */
  static answer(key: string, answer: unknown): boolean {
    const q = questions.get(key);
    if (!q) return false;
    questions.delete(key);
    q.resolve(answer);
    return true;
  }

  /** The chat closed: every open question is dismissed, and its window closed. */
  static closeAll(chatId: number, nvim?: Neovim): void {
    for (const [key, q] of questions) {
      if (q.chatId !== chatId) continue;
      questions.delete(key);
      q.resolve(undefined);
      if (nvim) notifyLua(nvim, `acpchat.${q.kind}`, "dismiss", [key]);
    }
  }

  /** Open a question in Lua and wait for its answer; `signal` withdraws it. */
  private ask<T>(kind: Question["kind"], fn: string, args: unknown[], signal: AbortSignal): Promise<T | undefined> {
    const key = `${this.chatId}:${nextKey++}`;
    const answer = new Promise<T | undefined>((resolve) => questions.set(key, { chatId: this.chatId, kind, resolve: resolve as (a: unknown) => void }));
    const onAbort = () => {
      if (NvimPort.answer(key, undefined)) notifyLua(this.nvim, `acpchat.${kind}`, "dismiss", [key]);
    };
    if (signal.aborted) queueMicrotask(onAbort);
    else signal.addEventListener("abort", onAbort, { once: true });
    notifyLua(this.nvim, `acpchat.${kind}`, fn, [this.chatId, key, ...args]);
    void answer.finally(() => signal.removeEventListener("abort", onAbort));
    return answer;
  }

  async readTextFile(req: ReadTextFileRequest): Promise<{ content: string }> {
    const r = await requestLua<BufferRead>(this.nvim, "acpchat.workspace", "read", [req.path, req.line ?? 0, req.limit ?? 0]);
    if (r.loaded) return { content: r.content };
    return { content: await readFileWindow(req.path, req.line, req.limit, this.maxReadBytes) };
  }

  /**
   * fs/write_text_file. A loaded buffer gets the content as one undoable change; a buffer with
   * the user's unsaved edits is never overwritten silently (the change goes to review); with
   * the "review" mode every change is reviewed first. Files no buffer holds are written to disk
   * atomically. Resolves when the content is in place; rejects if the user rejected it.
   */
  async writeTextFile(req: WriteTextFileRequest, signal: AbortSignal): Promise<void> {
    const state = await requestLua<BufferState>(this.nvim, "acpchat.workspace", "current", [req.path]);
    let content = req.content;
    let tick = 0;
    if (state.loaded) tick = state.tick;
    if (this.writeMode === "review" || (state.loaded && state.modified)) {
      const current = state.loaded ? state.text : await readFileWindow(req.path).catch(() => "");
      const hs = hunks(current, req.content);
      if (hs.length === 0) return; // nothing would change
      const { added, removed } = summarizeDiff(current, req.content);
      const reason = state.loaded && state.modified ? "conflict" : "review";
      const answer = this.ask<ReviewAnswer>("review", "open", [{ path: req.path, current, proposed: req.content, hunks: hs, added, removed, reason }], signal);
      const a = await answer;
      if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, `the write to ${req.path} was cancelled`);
      if (!a || a.accepted !== true || typeof a.content !== "string") throw new RpcError(ErrorCodes.InternalError, `The user rejected the change to ${req.path}`);
      content = a.content;
    }
    const applied = await requestLua<ApplyResult>(this.nvim, "acpchat.workspace", "apply", [req.path, content, this.writeMode === "save", tick]);
    if (applied.result === "applied") return;
    if (applied.result === "changed") throw new RpcError(ErrorCodes.InternalError, `${req.path} changed in the editor while the write was pending; nothing was written`);
    await writeFileAtomic(req.path, content);
    notifyLua(this.nvim, "acpchat.workspace", "reload", [req.path]);
  }

  async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionOutcome & { remember?: "session" | "project" }> {
    const tc = req.toolCall;
    const diffs = (tc.content ?? [])
      .filter((c) => c.type === "diff")
      .map((c) => ({ path: c.path, oldText: c.oldText ?? "", newText: c.newText, ...summarizeDiff(c.oldText, c.newText) }));
    const question = {
      title: tc.title ?? tc.toolCallId,
      kind: tc.kind ?? "other",
      tool_call_id: tc.toolCallId,
      locations: (tc.locations ?? []).map((l) => (l.line ? `${l.path}:${l.line}` : l.path)),
      input: compactInput(tc.rawInput),
      diffs,
      options: req.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind })),
    };
    const answer = this.ask<{ optionId: string; remember?: "session" | "project" }>("permission", "ask", [question], signal);
    const a = await answer;
    if (a === undefined || typeof a.optionId !== "string") return { outcome: "cancelled" };
    const remember = a.remember === "session" || a.remember === "project" ? a.remember : undefined;
    return { outcome: "selected", optionId: a.optionId, remember };
  }

  async chooseAuthMethod(methods: AuthMethod[], signal: AbortSignal): Promise<string | undefined> {
    const list = methods.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined, type: m.type ?? "agent" }));
    return this.ask<string>("auth", "choose", [list], signal);
  }

  async runAuthTerminal(spec: { command: string; args: string[]; env: Record<string, string>; cwd: string; title: string }, signal: AbortSignal): Promise<void> {
    await this.ask<number>("auth", "terminal", [spec], signal);
  }

  /** elicitation/create: a form asked field by field, or a URL opened after the user agrees. */
  async elicit(req: CreateElicitationRequest, signal: AbortSignal): Promise<ElicitationResponse> {
    const a = await this.ask<ElicitationResponse>("elicitation", "ask", [{ message: req.message, mode: req.mode, url: req.url, schema: req.requestedSchema }], signal);
    return a ?? { action: "cancel" };
  }
}
