/**
 * All chats of one Neovim instance, driven by calls from Lua (`AcpChatRequest`/`AcpChatNotify`).
 * Each chat gets a render queue that sends Lua at most one batch per frame, as a single
 * `nvim_exec_lua` notification.
 */
import type { Neovim } from "neovim";
import { join } from "node:path";
import { Chat } from "../session/chat.js";
import { errorMessage } from "../protocol/errors.js";
import type { ContentBlock, StopReason } from "../protocol/schema.js";
import { RenderQueue, type RenderOp } from "../render/render-queue.js";
import { statusView } from "../render/view-model.js";
import { NvimPort, type WriteMode } from "./nvim-port.js";
import { PermissionRules, type ConfiguredRule } from "../session/permission-rules.js";
import { buildPrompt, type ContextItem } from "./prompt-builder.js";
import { toLua } from "./lua-value.js";
import { notifyLua } from "./lua-call.js";

interface AgentSpec {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

interface OpenParams {
  id: number;
  agent: AgentSpec;
  cwd: string;
  log_dir?: string;
  extra_roots?: string[];
  timeouts?: { initialize_ms?: number; new_session_ms?: number; cancel_ms?: number };
  fs?: { max_read_bytes?: number };
  frame_ms?: number;
  write?: WriteMode;
  permissions?: { rules?: ConfiguredRule[]; store?: string };
}

interface Entry {
  chat: Chat;
  rules: PermissionRules;
  queue: RenderQueue;
  started: Promise<void>;
}

export class ChatHost {
  private readonly chats = new Map<number, Entry>();

  constructor(private readonly nvim: Neovim) {
    // The host's stdin closing means Neovim is gone (quit, crash, SIGKILL): take every agent
    // and terminal with us. `exit` handlers can only do synchronous work, hence killNow.
    process.stdin.on("end", () => this.shutdownNow());
    process.on("exit", () => this.shutdownNow());
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      process.on(sig, () => {
        this.shutdownNow();
        process.exit(0);
      });
    }
  }

  async dispatch(method: string, p: Record<string, unknown>): Promise<unknown> {
    return toLua(await this.call(method, p));
  }

  private async call(method: string, p: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case "open":
        return this.open(p as unknown as OpenParams);
      case "send":
        return this.send(Number(p.id), String(p.text ?? ""), (p.context as ContextItem[] | undefined) ?? []);
      case "cancel":
        this.get(Number(p.id)).chat.cancel();
        return true;
      case "close":
        return this.close(Number(p.id));
      case "status": {
        const e = this.get(Number(p.id));
        return statusView(e.chat.opts.agentName, e.chat.status, e.chat.state, e.chat.sessionId, e.chat.boundary.cwd);
      }
      case "answer": {
        const remember = p.remember === "session" || p.remember === "project" ? p.remember : undefined;
        return NvimPort.answer(String(p.key), p.option_id == null ? undefined : { optionId: String(p.option_id), remember });
      }
      case "permissions":
        return this.get(Number(p.id)).rules.list();
      case "permission_remove":
        return this.get(Number(p.id)).rules.remove(String(p.rule));
      case "review_done":
        return NvimPort.answer(String(p.key), { accepted: p.accepted === true, content: typeof p.content === "string" ? p.content : undefined });
      case "tool_diffs": {
        const call = this.get(Number(p.id)).chat.state.toolCalls.get(String(p.tool_call_id));
        return (call?.content ?? []).filter((c) => c.type === "diff");
      }
      case "trace":
        return this.get(Number(p.id)).chat.trace.list(typeof p.filter === "string" ? p.filter : undefined);
      case "list":
        return [...this.chats.entries()].map(([id, e]) => ({ id, agent: e.chat.opts.agentName, status: e.chat.status, pid: e.chat.agent?.pid }));
      case "terminal":
        return this.terminalOutput(Number(p.id), typeof p.terminal === "string" ? p.terminal : undefined);
      case "shutdown":
        await Promise.all([...this.chats.keys()].map((id) => this.close(id)));
        return true;
      case "ping":
        return { pid: process.pid, node: process.version };
      default:
        throw new Error(`acpchat: unknown method ${method}`);
    }
  }

  /** Errors of async calls (AcpChatNotify) have no caller to return to: show them. */
  report(e: unknown): void {
    notifyLua(this.nvim, "acpchat.util", "notify", [`acpchat: ${errorMessage(e)}`, "error"]);
  }

  private get(id: number): Entry {
    const e = this.chats.get(id);
    if (!e) throw new Error(`acpchat: no chat ${id}`);
    return e;
  }

  private open(p: OpenParams): boolean {
    if (this.chats.has(p.id)) return true;
    const id = p.id;
    const port = new NvimPort(this.nvim, id, p.fs?.max_read_bytes, p.write ?? "review");
    let queue!: RenderQueue;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const rules = new PermissionRules(p.agent.name, p.cwd, p.permissions?.rules ?? [], p.permissions?.store);
    const chat = new Chat({
      agentName: p.agent.name,
      command: { command: p.agent.command, args: p.agent.args ?? [], env: p.agent.env ?? {}, cwd: p.agent.cwd },
      cwd: p.cwd,
      extraRoots: p.extra_roots,
      port,
      onEvents: (events) => queue.push(events),
      traceFile: p.log_dir ? join(p.log_dir, `${stamp}-chat${id}-${p.agent.name}.jsonl`) : undefined,
      timeouts: { initializeMs: p.timeouts?.initialize_ms, newSessionMs: p.timeouts?.new_session_ms, cancelMs: p.timeouts?.cancel_ms },
      permissionRules: rules,
      features: { terminalOutputMeta: true },
    });
    queue = new RenderQueue({
      frameMs: p.frame_ms,
      send: (ops) => this.render(id, ops),
      status: () => statusView(chat.opts.agentName, chat.status, chat.state, chat.sessionId, chat.boundary.cwd),
    });
    port.onBoundaryNote = (text) => chat.notice(text, "warn");
    const started = chat.start().then(
      () => queue.flush(),
      () => {
        queue.push([{ type: "meta" }]);
        queue.flush();
      },
    );
    this.chats.set(id, { chat, rules, queue, started });
    return true;
  }

  private async send(id: number, text: string, context: ContextItem[]): Promise<boolean> {
    const e = this.get(id);
    await e.started;
    if (e.chat.state.turnState !== "idle") throw new Error("acpchat: a turn is already running (cancel it with <C-c> or :AcpChatCancel)");
    const prompt: ContentBlock[] = await buildPrompt(text, context, e.chat.boundary, e.chat.client?.supports("embeddedContext") ?? false);
    void e.chat.prompt(prompt).then((stop: StopReason | "error") => e.queue.endTurn(stop));
    return true;
  }

  private async close(id: number): Promise<boolean> {
    const e = this.chats.get(id);
    if (!e) return false;
    this.chats.delete(id);
    e.queue.flush();
    e.queue.dispose();
    NvimPort.closeAll(id, this.nvim);
    await e.chat.close();
    return true;
  }

  private terminalOutput(id: number, terminalId?: string): { id: string; output: string; exit?: string }[] {
    const terms = this.get(id).chat.terminals.all().filter((t) => !terminalId || t.id === terminalId);
    return terms.map((t) => ({
      id: t.id,
      output: t.output(),
      exit: t.exitStatus ? (t.exitStatus.signal ? `signal ${t.exitStatus.signal}` : `exit ${t.exitStatus.exitCode}`) : undefined,
    }));
  }

  private render(id: number, ops: RenderOp[]): void {
    notifyLua(this.nvim, "acpchat.render", "apply", [id, ops]);
  }

  private shutdownNow(): void {
    for (const e of this.chats.values()) e.chat.killNow();
  }
}
