/**
 * All chats of one Neovim instance, driven by calls from Lua (`AcpChatRequest`/`AcpChatNotify`).
 * Each chat gets a render queue that sends Lua at most one batch per frame, as a single
 * `nvim_exec_lua` notification.
 */
import type { Neovim } from "neovim";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { Chat } from "../session/chat.js";
import { errorMessage } from "../protocol/errors.js";
import type { ContentBlock, StopReason } from "../protocol/schema.js";
import { RenderQueue, type RenderOp } from "../render/render-queue.js";
import { statusView } from "../render/view-model.js";
import { NvimPort, type WriteMode } from "./nvim-port.js";
import { PermissionRules, type ConfiguredRule } from "../session/permission-rules.js";
import { buildPrompt, type ContextItem } from "./prompt-builder.js";
import { toLua } from "./lua-value.js";
import { describeTerminalExit } from "../terminals/terminal-manager.js";
import { pruneTraces } from "../trace/trace-log.js";
import { SessionIndex } from "../session/session-index.js";
import { deleteSession, listSessions, optionsOf, setOption, type AgentSpec, type SessionsParams } from "./session-commands.js";
import { notifyLua } from "./lua-call.js";


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
  /** The client's session index file. */
  session_index?: string;
  /** Continue this earlier session instead of starting a new one. */
  resume?: string;
}

interface Entry {
  params: OpenParams;
  chat: Chat;
  rules: PermissionRules;
  queue: RenderQueue;
  started: Promise<void>;
  index: SessionIndex;
}


export class ChatHost {
  private readonly chats = new Map<number, Entry>();

  constructor(private readonly nvim: Neovim) {
    // The host's stdin closing means Neovim is gone (quit, crash, SIGKILL): take every agent
    // and terminal with us. `exit` handlers can only do synchronous work, hence killNow.
    process.stdin.on("end", () => this.shutdownNow());
    process.on("exit", () => this.shutdownNow());
    for (const sig of ["SIGTERM", "SIGHUP"] as const) {
      process.on(sig, () => {
        this.shutdownNow();
        process.exit(0);
      });
    }
    // An interrupt meant for Neovim (which survives it) must not end every chat with the host.
    process.on("SIGINT", () => undefined);
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
      case "status":
        return statusOf(this.get(Number(p.id)).chat);
      case "permissions":
        return this.get(Number(p.id)).rules.list();
      case "permission_remove":
        return this.get(Number(p.id)).rules.remove(String(p.rule));
      case "reply":
        return NvimPort.answer(String(p.key), p.value);
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
      case "restart":
        return this.restart(Number(p.id));
      case "sessions": {
        const q = p as unknown as SessionsParams;
        return listSessions(q, this.liveChat(q.agent.name));
      }
      case "delete_session": {
        const q = p as unknown as SessionsParams & { session_id: string };
        return deleteSession(q, this.liveChat(q.agent.name));
      }
      case "modes": {
        const s = this.get(Number(p.id)).chat.state;
        return { current: s.modes?.currentModeId, available: s.modes?.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description })) ?? [] };
      }
      case "set_mode":
        await this.get(Number(p.id)).chat.setMode(String(p.mode));
        return true;
      case "options":
        return optionsOf(this.get(Number(p.id)).chat);
      case "set_option":
        await setOption(this.get(Number(p.id)).chat, String(p.option), p.value as string | boolean);
        return true;
      case "shutdown":
        await Promise.all([...this.chats.keys()].map((id) => this.close(id)));
        return true;
      case "ping":
        return { pid: process.pid, node: process.version };
      case "memory":
        return memory(p.gc === true);
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
    this.chats.set(p.id, this.create(p));
    return true;
  }

  /** A chat for `p`, starting now (a new session, or `p.resume`). */
  private create(p: OpenParams): Entry {
    const id = p.id;
    const port = new NvimPort(this.nvim, id, p.fs?.max_read_bytes, p.write ?? "review");
    let queue!: RenderQueue;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    if (p.log_dir) pruneTraces(p.log_dir);
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
      features: { terminalOutputMeta: true, elicitationForm: true, authTerminal: true },
    });
    queue = new RenderQueue({
      frameMs: p.frame_ms,
      send: (ops) => this.render(id, ops),
      status: () => statusOf(chat),
    });
    const index = new SessionIndex(p.session_index);
    const started = chat.start(p.resume ? { sessionId: p.resume } : undefined).then(
      async () => {
        index.touch({ agent: p.agent.name, sessionId: chat.sessionId!, cwd: chat.boundary.cwd, title: chat.state.title });
        await this.applyDefaults(chat, p.agent);
        queue.flush();
      },
      () => {
        queue.push([{ type: "meta" }]);
        queue.flush();
      },
    );
    return { params: p, chat, rules, queue, started, index };
  }

  /** Per-agent defaults from the config: mode, model, other options. Failures are noted, not fatal. */
  private async applyDefaults(chat: Chat, agent: AgentSpec): Promise<void> {
    const s = chat.state;
    try {
      if (agent.mode && s.modes && s.modes.currentModeId !== agent.mode) await chat.setMode(agent.mode);
      if (agent.model) {
        const opt = s.configOptions.find((o) => o.category === "model");
        if (opt) await chat.setConfigOption(opt.id, agent.model);
        else if (s.legacyModels) await chat.setModel(agent.model);
      }
      for (const [k, v] of Object.entries(agent.options ?? {})) await chat.setConfigOption(k, v);
    } catch (e) {
      chat.notice(`Could not apply the configured defaults for ${agent.name}: ${errorMessage(e)}`, "warn");
    }
  }

  /**
   * `:AcpChat` on a chat whose agent died: start it again and continue the session (resume or
   * load when the agent supports it; a load replays the conversation, so Lua clears the view).
   */
  private async restart(id: number): Promise<{ how: "resume" | "load" | "new" }> {
    const old = this.get(id);
    const sessionId = old.chat.sessionId;
    const continuation = sessionId !== undefined ? old.chat.client?.continuation() : undefined;
    const canContinue = continuation !== undefined;
    const how = continuation ?? "new";
    old.queue.flush();
    old.queue.dispose();
    await old.chat.close();
    this.chats.set(id, this.create({ ...old.params, resume: canContinue ? sessionId : undefined }));
    return { how };
  }

  private async send(id: number, text: string, context: ContextItem[]): Promise<boolean> {
    const e = this.get(id);
    await e.started;
    if (e.chat.state.turnState !== "idle") throw new Error("acpchat: a turn is already running (cancel it with <C-c> or :AcpChatCancel)");
    const prompt: ContentBlock[] = await buildPrompt(text, context, e.chat.boundary, e.chat.client?.supports("embeddedContext") ?? false);
    void e.chat.prompt(prompt).then((stop: StopReason | "error") => {
      e.queue.endTurn(stop);
      if (e.chat.sessionId) e.index.touch({ agent: e.params.agent.name, sessionId: e.chat.sessionId, cwd: e.chat.boundary.cwd, title: e.chat.state.title });
    });
    return true;
  }

  /** A live, ready chat with this agent, to ask about sessions without starting another. */
  private liveChat(agent: string): Chat | undefined {
    for (const e of this.chats.values()) if (e.chat.opts.agentName === agent && e.chat.status === "ready") return e.chat;
    return undefined;
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

  private terminalOutput(id: number, terminalId?: string): { id: string; pid?: number; output: string; exit?: string }[] {
    const terms = this.get(id).chat.terminals.all().filter((t) => !terminalId || t.id === terminalId);
    return terms.map((t) => ({
      id: t.id,
      pid: t.pid,
      output: t.output(),
      exit: describeTerminalExit(t.exitStatus),
    }));
  }

  private render(id: number, ops: RenderOp[]): void {
    notifyLua(this.nvim, "acpchat.render", "apply", [id, ops]);
  }

  private shutdownNow(): void {
    for (const e of this.chats.values()) e.chat.killNow();
  }
}

/** The host's memory, after a full garbage collection when asked (for the benchmarks). */
function memory(collect: boolean): { rss: number; heapUsed: number; external: number; resources: string[] } {
  if (collect) {
    // Not exposed by default; the flag can be turned on at run time for a fresh context.
    v8.setFlagsFromString("--expose-gc");
    (vm.runInNewContext("gc") as () => void)();
  }
  const m = process.memoryUsage();
  // Timers, sockets, child processes: what keeps the event loop busy (none may leak).
  const resources = process.getActiveResourcesInfo().filter((r) => r !== "TTYWrap");
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, resources };
}

function statusOf(chat: Chat) {
  return statusView(chat.opts.agentName, chat.status, chat.state, chat.sessionId, chat.boundary.cwd);
}
