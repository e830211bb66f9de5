/**
 * All chats of one Neovim instance, driven by the calls of contract.ts. Nothing here makes Lua
 * wait: a call is a notification, and what it leads to comes back as events (render batches,
 * results, questions). Each chat gets a render queue that sends at most one batch per frame.
 */
import type { Neovim } from "neovim";
import { existsSync } from "node:fs";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { Chat } from "../session/chat.js";
import { errorMessage } from "../protocol/errors.js";
import type { StopReason } from "../protocol/schema.js";
import { RenderQueue, type RenderOp } from "../render/render-queue.js";
import { statusView, type StatusView } from "../render/view-model.js";
import { NvimPort } from "./nvim-port.js";
import { PermissionRules } from "../session/permission-rules.js";
import { describeTerminalExit, terminalFailed } from "../terminals/exit-status.js";
import { killAllNow } from "../agent/process-group.js";
import { pruneTraces } from "../trace/trace-log.js";
import { Redactor, commandSecrets } from "../trace/redact.js";
import { cgroupSupport } from "../agent/cgroup.js";
import { SessionIndex } from "../session/session-index.js";
import { cancelSubagent, deleteSession, forkSource, listSessions, renameSession, setOption, subagentView, type AgentSpec, type SessionsParams } from "../session/session-commands.js";
import type { QueuedPrompt } from "../session/prompt-queue.js";
import { DEFAULT_MAX_BYTES, MediaFiles, attachClipboard, describeAttachment, findMedia, openMedia, saveMedia } from "../session/attachments.js";
import { Bridge } from "./bridge.js";
import { Questions } from "./questions.js";
import { EditorQueries } from "./editor-queries.js";
import { EditorChannel } from "../editor-tools/channel.js";
import { LUA_METHODS, type AgentParams, type LuaMethod, type LuaToNode, type OpenParams, type TakenBack } from "./contract.js";
import { fromWire, localName } from "./wire.js";
import { CheckpointStore } from "../checkpoints/store.js";
import { TurnCheckpoints } from "../checkpoints/turns.js";
import { changesConflict, changesQuickfix, changesReview, rewind, type ChangesContext } from "./changes-commands.js";
import { liveFiles } from "./live-files.js";
import { registryInstall, registryList } from "./registry-commands.js";
import { removeAgent } from "../registry/install.js";

interface Entry {
  params: OpenParams;
  chat: Chat;
  rules: PermissionRules;
  queue: RenderQueue;
  /** The chat's private folder for opened media and clipboard images (removed on close). */
  media: MediaFiles;
  /** Turn checkpoints; kept across restarts of the agent (the folder's history is the chat's). */
  checkpoints: TurnCheckpoints | undefined;
}

type Handlers = { [M in LuaMethod]: (p: LuaToNode[M]["params"]) => LuaToNode[M]["result"] | Promise<LuaToNode[M]["result"]> };

export class ChatHost {
  private readonly chats = new Map<number, Entry>();
  private readonly bridge: Bridge;
  private readonly questions: Questions;
  private readonly editorQueries: EditorQueries;
  private readonly handlers: Handlers;

  constructor(nvim: Neovim) {
    this.bridge = new Bridge(nvim);
    this.questions = new Questions(this.bridge);
    this.editorQueries = new EditorQueries(this.bridge);
    this.handlers = this.makeHandlers();
    // The host's stdin closing means Neovim is gone (quit, crash, SIGKILL): take every agent
    // and terminal with us. `exit` handlers can only do synchronous work, hence killNow.
    process.stdin.on("end", () => {
      this.shutdownNow();
      process.exit(0);
    });
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

  /**
   * One call from Lua: `[method, params, ref]`. With a ref, the outcome goes back as the
   * `result` event; without one, a failure is shown as a notification (nobody else would see it).
   */
  receive(args: unknown[]): void {
    const [wireMethod, wireParams, ref] = args as [string, unknown, number | undefined];
    const method = localName(String(wireMethod)) as LuaMethod;
    const settle = (ok: boolean, value?: unknown, raw?: string) => {
      // An error may quote the agent: it is redacted like everything else the user sees.
      const error = raw === undefined ? undefined : this.redact(wireParams, raw);
      if (typeof ref === "number") this.bridge.emit("result", { ref, ok, value, error });
      else if (!ok) this.bridge.emit("notify", { message: `acpchat: ${error}`, level: "error" });
    };
    if (!(LUA_METHODS as readonly string[]).includes(method)) return settle(false, undefined, `unknown method ${wireMethod}`);
    const handler = this.handlers[method] as (p: unknown) => unknown;
    Promise.resolve()
      .then(() => handler(fromWire(wireParams ?? {})))
      .then(
        (v) => settle(true, v ?? undefined),
        (e: unknown) => settle(false, undefined, errorMessage(e)),
      );
  }

  /** Redacted with the chat's secrets when the call names one, else key-like values only. */
  private redact(params: unknown, text: string): string {
    const p = params as { chat?: unknown; agent?: AgentParams } | undefined;
    const chat = typeof p?.chat === "number" ? this.chats.get(p.chat)?.chat : undefined;
    if (chat) return chat.redactor.text(text);
    // A call about an agent without a chat (sessions): that agent's secrets.
    if (p?.agent && typeof p.agent === "object") return new Redactor(commandSecrets(agentSpec(fromWire<AgentParams>(p.agent)))).text(text);
    return genericRedactor.text(text);
  }

  private makeHandlers(): Handlers {
    return {
      open: (p) => {
        // `reopen`: the chat lived in a host that died; its transcript is on screen already.
        if (!this.chats.has(p.chat)) this.chats.set(p.chat, this.create(p, p.reopen ? (p.resume ? "continue" : "new") : undefined));
        return null;
      },
      send: (p) => this.get(p.chat).chat.submit(p.text, p.context ?? []),
      cancel: (p) => ({ takenBack: this.get(p.chat).chat.cancel().map(takenBack) }),
      close: async (p) => {
        await this.close(p.chat);
        return null;
      },
      restart: (p) => this.restart(p.chat, p.fresh === true),
      reply: (p) => {
        this.questions.answer(p.key, p.value);
        return null;
      },
      setMode: async (p) => {
        await this.get(p.chat).chat.setMode(p.mode);
        return null;
      },
      setOption: async (p) => {
        await setOption(this.get(p.chat).chat, p.option, p.value);
        return null;
      },
      permissions: (p) => this.get(p.chat).rules.list(),
      permissionRemove: (p) => this.get(p.chat).rules.remove(p.rule),
      toolDiffs: async (p) => {
        const { chat } = this.get(p.chat);
        const call = chat.state.toolCalls.get(p.toolCallId);
        const diffs = await (chat.opts.port as NvimPort).resolveDiffs(p.toolCallId, (call?.content ?? []).flatMap((c) => (c.type === "diff" ? [c] : [])));
        return diffs.map((d) => ({ path: d.path, oldText: d.oldText ?? undefined, newText: d.newText }));
      },
      trace: (p) =>
        this.get(p.chat)
          .chat.trace.list(p.filter)
          .map(({ payload, ...e }) => ({ ...e, payloadJson: JSON.stringify(payload) ?? "null" })),
      terminal: (p) => {
        const chat = this.get(p.chat).chat;
        const client = chat.terminals.all().map((t) => ({ id: t.id, pid: t.pid, output: chat.redactor.text(t.output()), exit: describeTerminalExit(t.exitStatus), failed: terminalFailed(t.exitStatus), truncated: t.truncated || undefined }));
        // And what the agent ran itself and streamed in tool call metadata.
        const meta = chat.state.metaTerminals().map((t) => ({ ...t, output: chat.redactor.text(t.output) }));
        return [...client, ...meta].filter((t) => !p.terminal || t.id === p.terminal);
      },
      attach: (p) => {
        const e = this.get(p.chat);
        const max = e.params.media?.maxBytes ?? DEFAULT_MAX_BYTES;
        if (p.clipboard) return attachClipboard(e.media, p.clipboard === "primary", max);
        return describeAttachment(p.path ?? "", (path) => e.chat.boundary.check(path, "attach"), e.chat.boundary.cwd, max);
      },
      mediaOpen: (p) => {
        const e = this.get(p.chat);
        const blocks = e.media.blocks(e.chat.state.blocks, p.past);
        const b = blocks.find((x) => x.id === p.block);
        return openMedia(e.media, findMedia(blocks, p.block, p.index), b?.type === "media" ? (b as { name?: string }).name : undefined).then((path) => ({ path }));
      },
      mediaSave: (p) => {
        const e = this.get(p.chat);
        return saveMedia(findMedia(e.media.blocks(e.chat.state.blocks, p.past), p.block, p.index), p.path, p.overwrite === true);
      },
      sessions: (p) => this.probe(p.chat, (signal) => listSessions(sessionsParams(p), this.liveChat(p.agent.name), signal)),
      deleteSession: (p) => this.probe(p.chat, (signal) => deleteSession({ ...sessionsParams(p), sessionId: p.sessionId }, this.liveChat(p.agent.name), signal)),
      renameSession: async (p) => {
        const shown = [...this.chats.values()].find((e) => e.chat.opts.agentName === p.agent.name && e.chat.sessionId === p.sessionId);
        // Asked through the chat that holds the session when there is one (its agent has it in memory).
        const live = shown?.chat.status === "ready" ? shown.chat : this.liveChat(p.agent.name);
        const r = await renameSession({ ...sessionsParams(p), sessionId: p.sessionId, title: p.title }, live, shown?.chat);
        shown?.queue.push([{ type: "meta" }]);
        return r;
      },
      subagent: (p) => subagentView(this.get(p.chat).chat, p.sessionId),
      forkSource: (p) => forkSource(this.get(p.chat).chat),
      subagentCancel: (p) => cancelSubagent(this.get(p.chat).chat, p.sessionId),
      log: (p) => {
        const e = p.chat !== undefined ? this.chats.get(p.chat) : undefined;
        e?.chat.trace.note("lua-error", p.details ? `${p.message}\n${p.details}` : p.message);
        return null;
      },
      chats: () => [...this.chats.entries()].map(([chat, e]) => ({ chat, agent: e.chat.opts.agentName, state: statusOf(e.chat).state, pid: e.chat.agent?.pid })),
      shutdown: async () => {
        await Promise.all([...this.chats.keys()].map((id) => this.close(id)));
        return null;
      },
      ping: () => ({ pid: process.pid, node: process.version, cgroups: cgroupSupport() }),
      editorAnswer: (p) => {
        this.editorQueries.answer(p.key, p.valueJson, p.error);
        return null;
      },
      memory: (p) => memory(p.gc === true, p.snapshot),
      logout: async (p) => {
        await this.get(p.chat).chat.logout();
        return null;
      },
      registryList: (p) => registryList(p),
      registryInstall: (p) => registryInstall(p, (message) => this.bridge.emit("notify", { message: `acpchat: ${genericRedactor.text(message)}`, level: "info" })),
      registryRemove: (p) => removeAgent(p.dir, p.id),
      changes: (p) => changesQuickfix(this.changesContext(p.chat), p.turn),
      changesReview: (p) => changesReview(this.changesContext(p.chat), p.step, p.path),
      changesConflict: (p) => changesConflict(this.changesContext(p.chat), p.path),
      rewind: (p) => rewind(this.changesContext(p.chat), p.turn, p.undo === true, p.dryRun === true),
    };
  }

  private changesContext(id: number): ChangesContext {
    const e = this.get(id);
    return {
      chat: e.chat,
      checkpoints: e.checkpoints,
      live: liveFiles(this.bridge),
      // Withdrawn when the chat closes (Questions.withdrawAll).
      review: (q) => this.questions.ask(id, "review", q, new AbortController().signal),
    };
  }

  private get(id: number): Entry {
    const e = this.chats.get(id);
    if (!e) throw new Error(`no chat ${id} (it was closed)`);
    return e;
  }

  /**
   * A chat for `p`, starting in the background (a new session, or `p.resume`). After a restart
   * the view keeps what it shows until the replacement succeeded: what a continued session draws
   * while it starts is held back; a load's replay then replaces the transcript, anything else is
   * added below it, and a failure leaves it as it was.
   */
  private create(p: OpenParams, restart?: "continue" | "new", media = new MediaFiles(), checkpoints = openCheckpoints(p)): Entry {
    const id = p.chat;
    const agent = agentSpec(p.agent);
    const port = new NvimPort(this.bridge, this.questions, id, p.fs?.maxReadBytes, p.write ?? "review");
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    if (p.logDir) pruneTraces(p.logDir);
    const rules = new PermissionRules(agent.name, p.cwd, p.permissions?.rules ?? [], p.permissions?.store);
    const index = new SessionIndex(p.sessionIndex);
    let held: RenderOp[] | undefined = restart === "continue" ? [] : undefined;
    const send = (ops: RenderOp[]) => {
      // Status changes are drawn at once; the replay waits for the load to succeed.
      if (held) held.push(...ops.filter((o) => o.op !== "meta"));
      const shown = held ? ops.filter((o) => o.op === "meta") : ops;
      if (shown.length > 0) this.bridge.emit("render", { chat: id, ops: shown });
    };
    if (restart === "new") send([{ op: "generation" }]);
    const touch = () => {
      if (chat.sessionId) index.touch({ agent: agent.name, sessionId: chat.sessionId, cwd: chat.boundary.cwd, title: chat.state.title });
    };
    const editor = this.editorChannel(p, () => chat);
    const chat: Chat = new Chat({
      agentName: agent.name,
      command: { command: agent.command, args: agent.args ?? [], env: agent.env ?? {}, cwd: agent.cwd },
      cwd: p.cwd,
      extraRoots: p.extraRoots,
      mcpServers: p.mcpServers,
      port,
      onEvents: (events) => queue.push(events),
      traceFile: p.logDir ? join(p.logDir, `${stamp}-chat${id}-${agent.name}.jsonl`) : undefined,
      timeouts: p.timeouts,
      terminal: p.terminal,
      media: { maxBytes: p.media?.maxBytes, owns: (path) => media.owns(path) },
      permissionRules: rules,
      features: { terminalOutputMeta: true, elicitationForm: true, authTerminal: true, unstable: p.unstable === true },
      onTurnEnd: (stop: StopReason | "error") => {
        queue.endTurn(stop);
        touch();
      },
      onTakeBack: (prompts) => this.bridge.emit("takeBack", { chat: id, prompts: prompts.map(takenBack) }),
      onNotify: (message, level) => this.bridge.emit("notify", { message: `acpchat: ${message}`, level }),
      clientMcpServer: editor,
      checkpoints,
    });
    // The agent's questions (forms, URLs, sign-in) are shown without the chat's secrets.
    port.redactor = chat.redactor;
    port.inside = (path) => chat.boundary.check(path, "read");
    const queue = new RenderQueue({ frameMs: p.frameMs, send, status: () => statusOf(chat) });
    // The view shows "starting" at once (a crashed chat's view must not look crashed meanwhile).
    queue.push([{ type: "meta" }]);
    chat.start(p.fork ? { sessionId: p.fork, fork: true } : p.resume ? { sessionId: p.resume } : undefined).then(
      async () => {
        touch();
        void checkpoints?.store.ready.then(() => chat.sayCheckpointsOff());
        if (held) {
          queue.flush(); // the rest of what it drew joins what is held
          const drawn = held;
          held = undefined;
          // A load replayed the conversation: it replaces the view. A resume replays nothing.
          send([{ op: chat.continuedBy === "load" ? "reset" : "generation" }, ...drawn]);
        }
        await this.applyDefaults(chat, agent);
        queue.flush();
      },
      () => {
        if (held) {
          // The old transcript stays; what the failed load drew is dropped.
          held = undefined;
          send([{ op: "generation" }]);
          chat.notice(`Could not reload the session: ${chat.failure ?? "the agent failed"}. The transcript above is the one from before; :AcpChat tries again.`, "error");
        }
        queue.push([{ type: "meta" }]);
        queue.flush();
      },
    );
    return { params: p, chat, rules, queue, media, checkpoints };
  }

  /**
   * The editor's MCP server for this chat's sessions, when it is on and the bundled
   * server script exists; its tool calls become `editorQuery` events for this chat.
   */
  private editorChannel(p: OpenParams, chat: () => Chat): EditorChannel | undefined {
    if (!p.editorTools || !MCP_SCRIPT || !existsSync(MCP_SCRIPT)) return undefined;
    try {
      return new EditorChannel({
        cwd: p.cwd,
        extraRoots: p.extraRoots,
        tools: p.editorTools.tools,
        timeoutMs: p.editorTools.timeoutMs,
        maxItems: p.editorTools.maxItems,
        maxFileBytes: p.fs?.maxReadBytes,
        node: process.execPath,
        script: MCP_SCRIPT,
        query: (tool, args, signal) => this.editorQueries.query(p.chat, tool, args, signal),
        onProblem: (m) => chat().trace.note("problem", m),
      });
    } catch (e) {
      this.bridge.emit("notify", { message: `acpchat: the editor's tools are off for this chat: ${errorMessage(e)}`, level: "warn" });
      return undefined;
    }
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
   * load when the agent supports it). The old chat's questions are withdrawn.
   */
  private restart(id: number, fresh = false): { how: "resume" | "load" | "new" | "running" } {
    const old = this.get(id);
    // Asked twice (a second :AcpChat while the first restart starts): the one starting goes on.
    if (old.chat.status !== "failed") return { how: "running" };
    const sessionId = old.chat.sessionId;
    const how = fresh ? "new" : ((sessionId !== undefined ? old.chat.client?.continuation() : undefined) ?? "new");
    old.queue.flush();
    old.queue.dispose();
    this.questions.withdrawAll(id);
    void old.chat.close();
    // The transcript keeps what it showed (or is replayed): its clips still open (mediaOpen's `past`).
    old.media.archive(old.chat.state.blocks);
    const next = this.create({ ...old.params, fork: undefined /* a forked chat continues its own session */, resume: how !== "new" ? sessionId : undefined }, how === "new" ? "new" : "continue", old.media, old.checkpoints);
    // Turns go on from the transcript above (a load's replay numbers them itself).
    if (how !== "load") next.chat.state.turn = old.chat.state.turn;
    this.chats.set(id, next);
    return { how };
  }

  /** Calls about sessions that may start an agent, by the chat they were asked from (aborted when it closes). */
  private readonly probes = new Map<number, Set<AbortController>>();

  /** Run `fn` with a signal that aborts when chat `chat` closes. */
  private async probe<T>(chat: number | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (chat === undefined || !this.chats.has(chat)) return fn(new AbortController().signal);
    const ac = new AbortController();
    const set = this.probes.get(chat) ?? new Set();
    this.probes.set(chat, set.add(ac));
    try {
      return await fn(ac.signal);
    } finally {
      set.delete(ac);
      if (set.size === 0 && this.probes.get(chat) === set) this.probes.delete(chat);
    }
  }

  /** A live, ready chat with this agent, to ask about sessions without starting another. */
  private liveChat(agent: string): Chat | undefined {
    for (const e of this.chats.values()) if (e.chat.opts.agentName === agent && e.chat.status === "ready") return e.chat;
    return undefined;
  }

  private async close(id: number): Promise<void> {
    const e = this.chats.get(id);
    if (!e) return;
    this.chats.delete(id);
    e.queue.flush();
    e.queue.dispose();
    this.questions.withdrawAll(id);
    this.editorQueries.dropAll(id);
    for (const ac of this.probes.get(id) ?? []) ac.abort();
    this.probes.delete(id);
    // At once: the chat is gone from the map, so a host exiting meanwhile (Neovim quits right
    // after asking to shut down) would not find its folder any more.
    e.media.dispose();
    // Closed: its checkpoints may now be pruned (by age or size) by another chat's start.
    void e.checkpoints?.store.dispose();
    await e.chat.close();
  }

  private shutdownNow(): void {
    for (const e of this.chats.values()) {
      e.chat.killNow();
      e.media.dispose();
    }
    // Also what no live chat holds any more (a session listing's short-lived agent, say).
    killAllNow();
  }
}

const genericRedactor = new Redactor();

/** The chat's turn checkpoints when they are on; old sessions' are pruned in the background. */
function openCheckpoints(p: OpenParams): TurnCheckpoints | undefined {
  const c = p.checkpoints;
  if (!c) return undefined;
  const store = new CheckpointStore({
    stateDir: c.dir,
    cwd: p.cwd,
    chat: String(p.chat),
    git: c.git,
    limits: { maxFiles: c.maxFiles, maxFileBytes: c.maxFileBytes },
    maxAgeDays: c.maxAgeDays,
    maxBytes: c.maxBytes,
  });
  const cp = new TurnCheckpoints(store, p.cwd);
  // After the first snapshot, so the two do not compete for the disk.
  void store.ready.then(() => setTimeout(() => void store.prune().catch(() => undefined), 5000).unref());
  return cp;
}

/** The editor's MCP server script, beside this bundle (dist/acpchat-mcp.cjs); none when run from source. */
const MCP_SCRIPT = typeof __dirname === "string" ? join(__dirname, "acpchat-mcp.cjs") : undefined;

function takenBack(p: QueuedPrompt): TakenBack {
  return { text: p.text, context: p.context };
}

/** The agent as the config gives it, with its environment and options as maps again. */
function agentSpec(a: AgentParams): AgentSpec {
  return {
    ...a,
    env: Object.fromEntries((a.env ?? []).map((e) => [e.name, e.value])),
    options: Object.fromEntries((a.options ?? []).map((o) => [o.id, o.value])),
  };
}

function sessionsParams(p: { agent: AgentParams; cwd: string; sessionIndex?: string; unstable?: boolean }): SessionsParams {
  return { agent: agentSpec(p.agent), cwd: p.cwd, sessionIndex: p.sessionIndex, unstable: p.unstable };
}

/** The host's memory, after a full garbage collection when asked (for the benchmarks). */
function memory(collect: boolean, snapshot?: string): { rss: number; heapUsed: number; codeUsed: number; external: number; resources: string[] } {
  if (collect) {
    // Not exposed by default; the flag can be turned on at run time for a fresh context.
    v8.setFlagsFromString("--expose-gc");
    (vm.runInNewContext("gc") as () => void)();
  }
  const m = process.memoryUsage();
  // Timers, sockets, child processes: what keeps the event loop busy (none may leak).
  const resources = process.getActiveResourcesInfo().filter((r) => r !== "TTYWrap");
  const codeUsed = v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name.startsWith("code_"))
    .reduce((n, s) => n + s.space_used_size, 0);
  if (snapshot) v8.writeHeapSnapshot(snapshot);
  return { rss: m.rss, heapUsed: m.heapUsed, codeUsed, external: m.external, resources };
}

function statusOf(chat: Chat): StatusView {
  return statusView(
    { agent: chat.opts.agentName, lifecycle: chat.status, failure: chat.failure, sessionId: chat.sessionId, cwd: chat.boundary.cwd, queued: chat.queue.view(), continuedBy: chat.continuedBy },
    chat.state,
  );
}
