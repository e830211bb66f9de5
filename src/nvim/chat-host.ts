/**
 * All chats of one Neovim instance, driven by the calls of contract.ts. Nothing here makes Lua
 * wait: a call is a notification, and what it leads to comes back as events (render batches,
 * results, questions). The host opens, restarts and closes chats (open-chat.ts,
 * restart-policy.ts) and dispatches every other call to a handler module under calls/, each
 * given only what it needs.
 */
import type { Neovim } from "neovim";
import { killAllNow } from "../agent/process-group.js";
import { errorMessage } from "../protocol/errors.js";
import { Redactor, commandSecrets } from "../trace/redact.js";
import { Bridge } from "./bridge.js";
import { changesCalls } from "./calls/changes-calls.js";
import { reviewCalls } from "./calls/review-calls.js";
import { chatCalls } from "./calls/chat-calls.js";
import { genericRedactor, hostCalls } from "./calls/host-calls.js";
import { mediaCalls } from "./calls/media-calls.js";
import { sessionCalls } from "./calls/session-calls.js";
import { agentSpec, type Entry, type Handlers } from "./chat-entry.js";
import { LUA_METHODS, type AgentParams, type LuaMethod } from "./contract.js";
import { EditorQueries } from "./editor-queries.js";
import { liveFiles } from "./live-files.js";
import { openChat, type OpenChatDeps } from "./open-chat.js";
import { Questions } from "./questions.js";
import { restartChat } from "./restart-policy.js";
import { fromWire, localName } from "./wire.js";
import type { ReviewQuestion } from "../wire/index.js";

export class ChatHost {
  private readonly chats = new Map<number, Entry>();
  private readonly bridge: Bridge;
  private readonly questions: Questions;
  private readonly editorQueries: EditorQueries;
  private readonly handlers: Handlers;
  /** Calls about sessions that may start an agent, by the chat they were asked from (aborted when it closes). */
  private readonly probes = new Map<number, Set<AbortController>>();

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
    if (!(LUA_METHODS as readonly string[]).includes(method))
      return settle(false, undefined, `unknown method ${wireMethod}`);
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
    if (chat) return chat.redact(text);
    // A call about an agent without a chat (sessions): that agent's secrets.
    if (p?.agent && typeof p.agent === "object")
      return new Redactor(commandSecrets(agentSpec(fromWire<AgentParams>(p.agent)))).text(text);
    return genericRedactor.text(text);
  }

  private makeHandlers(): Handlers {
    const lookup = { get: (id: number) => this.get(id) };
    const changes = {
      ...lookup,
      live: liveFiles(this.bridge),
      // Withdrawn when the chat closes (Questions.withdrawAll).
      review: (id: number, q: ReviewQuestion) => this.questions.ask(id, "review", q, new AbortController().signal),
    };
    return {
      open: (p) => {
        // `reopen`: the chat lived in a host that died; its transcript is on screen already.
        if (!this.chats.has(p.chat))
          this.chats.set(p.chat, openChat(this.deps(), p, p.reopen ? (p.resume ? "continue" : "new") : undefined));
        return null;
      },
      close: async (p) => {
        await this.close(p.chat);
        return null;
      },
      restart: (p) => this.restart(p.chat, p.fresh === true),
      shutdown: async () => {
        await Promise.all([...this.chats.keys()].map((id) => this.close(id)));
        return null;
      },
      ...chatCalls(lookup),
      ...mediaCalls(lookup),
      ...sessionCalls({ probe: (chat, fn) => this.probe(chat, fn), all: () => this.chats.values() }),
      ...changesCalls(changes),
      ...reviewCalls(changes),
      ...hostCalls({
        entries: () => this.chats.entries(),
        find: (id) => this.chats.get(id),
        answerQuestion: (key, value) => void this.questions.answer(key, value),
        answerEditor: (key, valueJson, error) => void this.editorQueries.answer(key, valueJson, error),
        notify: (message, level) => this.bridge.emit("notify", { message, level }),
      }),
    };
  }

  /** What opening a chat needs of the host. */
  private deps(): OpenChatDeps {
    return { bridge: this.bridge, questions: this.questions, editorQueries: this.editorQueries };
  }

  private get(id: number): Entry {
    const e = this.chats.get(id);
    if (!e) throw new Error(`no chat ${id} (it was closed)`);
    return e;
  }

  /**
   * `:AcpChat` on a chat whose agent died: start it again and continue the session (resume or
   * load when the agent supports it). The old chat's questions are withdrawn.
   */
  private restart(id: number, fresh: boolean): { how: "resume" | "load" | "new" | "running" } {
    const { how, next } = restartChat(
      this.get(id),
      fresh,
      () => this.questions.withdrawAll(id),
      (r) => openChat(this.deps(), r.params, r.restart, r.media, r.checkpoints, r.incarnation),
    );
    if (next) this.chats.set(id, next);
    return { how };
  }

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
