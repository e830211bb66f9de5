/**
 * The EditorPort on Neovim: buffers first (with unsaved changes), disk second; questions asked
 * through the bridge without waiting on Lua (see contract.ts).
 */
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
import type { Bridge } from "./bridge.js";
import type { QuestionKind } from "./contract.js";
import type { Questions } from "./questions.js";
import { summarizeDiff } from "../render/diff-summary.js";
import { DEFAULT_MAX_READ_BYTES, readFileWindow, writeFileAtomic } from "../workspace/files.js";
import { hunks } from "../render/diff-summary.js";

type ReviewAnswer = { accepted: boolean; content?: string } | undefined;

/** How agent writes reach files: reviewed first, straight into the buffer, or also saved. */
export type WriteMode = "review" | "buffer" | "save";

export class NvimPort implements EditorPort {
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

  async readTextFile(req: ReadTextFileRequest): Promise<{ content: string }> {
    const r = await this.bridge.request("bufferRead", { path: req.path, line: req.line ?? 0, limit: req.limit ?? 0 });
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
    const state = await this.bridge.request("bufferState", { path: req.path });
    let content = req.content;
    let tick = 0;
    if (state.loaded) tick = state.tick;
    if (this.writeMode === "review" || (state.loaded && state.modified)) {
      const current = state.loaded ? state.text : await readFileWindow(req.path).catch(() => "");
      const hs = hunks(current, req.content);
      if (hs.length === 0) return; // nothing would change
      const { added, removed } = summarizeDiff(current, req.content);
      const reason = state.loaded && state.modified ? "conflict" : "review";
      const answer = this.ask<ReviewAnswer>("review", { path: req.path, current, proposed: req.content, hunks: hs, added, removed, reason }, signal);
      const a = await answer;
      if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, `the write to ${req.path} was cancelled`);
      if (!a || a.accepted !== true || typeof a.content !== "string") throw new RpcError(ErrorCodes.InternalError, `The user rejected the change to ${req.path}`);
      content = a.content;
    }
    const applied = await this.bridge.request("bufferApply", { path: req.path, content, save: this.writeMode === "save", tick });
    if (applied.result === "applied") return;
    if (applied.result === "changed") throw new RpcError(ErrorCodes.InternalError, `${req.path} changed in the editor while the write was pending; nothing was written`);
    await writeFileAtomic(req.path, content);
    this.bridge.emit("reload", { path: req.path });
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
    const answer = this.ask<{ optionId: string; remember?: "session" | "project" }>("permission", question, signal);
    const a = await answer;
    if (a === undefined || typeof a.optionId !== "string") return { outcome: "cancelled" };
    const remember = a.remember === "session" || a.remember === "project" ? a.remember : undefined;
    return { outcome: "selected", optionId: a.optionId, remember };
  }

  async chooseAuthMethod(methods: AuthMethod[], signal: AbortSignal): Promise<string | undefined> {
    const list = methods.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined, type: m.type ?? "agent" }));
    return this.ask<string>("auth", { how: "choose", methods: list }, signal);
  }

  async runAuthTerminal(spec: { command: string; args: string[]; env: Record<string, string>; cwd: string; title: string }, signal: AbortSignal): Promise<void> {
    await this.ask<number>("auth", { how: "terminal", ...spec, env: Object.entries(spec.env).map(([name, value]) => ({ name, value })) }, signal);
  }

  /** elicitation/create: a form asked field by field, or a URL opened after the user agrees. */
  async elicit(req: CreateElicitationRequest, signal: AbortSignal): Promise<ElicitationResponse> {
    const a = await this.ask<{ action: ElicitationResponse["action"]; contentJson?: string }>(
      "elicitation",
      { message: req.message, mode: req.mode, url: req.url, schemaJson: req.requestedSchema ? JSON.stringify(req.requestedSchema) : undefined },
      signal,
    );
    if (!a) return { action: "cancel" };
    return a.contentJson ? ({ action: a.action, content: JSON.parse(a.contentJson) } as ElicitationResponse) : ({ action: a.action } as ElicitationResponse);
  }
}
