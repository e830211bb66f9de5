/**
 * The EditorPort on Neovim: buffers first (with unsaved changes), disk second; questions asked
 * through Lua (vim.ui.select), whose answers come back through AcpChatNotify("answer").
 */
import type { Neovim } from "neovim";
import type { EditorPort } from "../client/editor-port.js";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import type { PermissionOutcome, ReadTextFileRequest, RequestPermissionRequest, WriteTextFileRequest } from "../protocol/schema.js";
import { compactInput } from "../render/view-model.js";
import { toLua } from "./lua-value.js";
import { summarizeDiff } from "../render/diff-summary.js";
import { DEFAULT_MAX_READ_BYTES, readFileWindow, writeFileAtomic } from "../workspace/files.js";

interface Question {
  chatId: number;
  resolve: (optionId: string | undefined) => void;
}

const questions = new Map<string, Question>();
let nextKey = 0;

type BufferRead = { loaded: false } | { loaded: true; content: string };
type BufferWrite = { result: "applied" | "not_loaded" | "rejected"; message?: string };

export class NvimPort implements EditorPort {
  onBoundaryNote: (text: string) => void = () => undefined;

  constructor(
    private readonly nvim: Neovim,
    private readonly chatId: number,
    private readonly maxReadBytes = DEFAULT_MAX_READ_BYTES,
  ) {}

  /** Lua answered a question (optionId undefined: dismissed). */
  static answer(key: string, optionId: string | undefined): boolean {
    const q = questions.get(key);
    if (!q) return false;
    questions.delete(key);
    q.resolve(optionId);
    return true;
  }

  /** The chat closed: every open question is dismissed. */
  static closeAll(chatId: number): void {
    for (const [key, q] of questions) {
      if (q.chatId !== chatId) continue;
      questions.delete(key);
      q.resolve(undefined);
    }
  }

  async readTextFile(req: ReadTextFileRequest): Promise<{ content: string }> {
    const r = (await this.nvim.lua('return require("acpchat.workspace").read(...)', [req.path, req.line ?? 0, req.limit ?? 0])) as BufferRead;
    if (r.loaded) return { content: r.content };
    return { content: await readFileWindow(req.path, req.line, req.limit, this.maxReadBytes) };
  }

  async writeTextFile(req: WriteTextFileRequest): Promise<void> {
    const r = (await this.nvim.lua('return require("acpchat.workspace").write(...)', [this.chatId, req.path, req.content])) as BufferWrite;
    if (r.result === "applied") return;
    if (r.result === "rejected") throw new RpcError(ErrorCodes.InternalError, r.message ?? `the user rejected the change to ${req.path}`);
    await writeFileAtomic(req.path, req.content);
    this.nvim.notify("nvim_exec_lua", ['require("acpchat.workspace").reload(...)', [req.path]]);
  }

  async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionOutcome> {
    const key = `${this.chatId}:${nextKey++}`;
    const answer = new Promise<string | undefined>((resolve) => questions.set(key, { chatId: this.chatId, resolve }));
    const tc = req.toolCall;
    const diffs = (tc.content ?? []).filter((c) => c.type === "diff").map((c) => ({ path: c.path, ...summarizeDiff(c.oldText, c.newText) }));
    this.nvim.notify("nvim_exec_lua", [
      'require("acpchat.permission").ask(...)',
      [
        this.chatId,
        key,
        toLua({
          title: tc.title ?? tc.toolCallId,
          kind: tc.kind ?? "other",
          tool_call_id: tc.toolCallId,
          locations: (tc.locations ?? []).map((l) => (l.line ? `${l.path}:${l.line}` : l.path)),
          input: compactInput(tc.rawInput),
          diffs,
          options: req.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind })),
        }),
      ],
    ]);
    const onAbort = () => {
      NvimPort.answer(key, undefined);
      this.nvim.notify("nvim_exec_lua", ['require("acpchat.permission").dismiss(...)', [key]]);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const optionId = await answer;
    signal.removeEventListener("abort", onAbort);
    if (optionId === undefined) return { outcome: "cancelled" };
    return { outcome: "selected", optionId };
  }
}
