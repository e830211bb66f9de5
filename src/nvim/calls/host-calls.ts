/**
 * Calls about the host itself rather than one chat: the list of chats, health and memory, logs
 * from the Lua side, answers to questions, and the agent registry.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { cgroupSupport } from "../../agent/cgroup.js";
import { removeAgent } from "../../registry/install.js";
import { Redactor } from "../../trace/redact.js";
import { statusOf, type Entry, type Handlers } from "../chat-entry.js";
import { codeCacheStatus } from "../code-cache.js";
import { registryInstall, registryList } from "./registry-calls.js";
import type { AnyAnswer } from "../../wire/index.js";

/** What the host calls need of the host. */
export interface HostCallsView {
  /** The open chats with their ids; `find` is undefined for a closed one. */
  entries(): Iterable<[number, Entry]>;
  find(id: number): Entry | undefined;
  answerQuestion(key: string, value: AnyAnswer | undefined): void;
  answerEditor(key: string, valueJson?: string, error?: string): void;
  notify(message: string, level: "info" | "warn" | "error"): void;
}

/** Redacts key-like values only: for text that belongs to no chat. */
export const genericRedactor = new Redactor();

export function hostCalls(
  host: HostCallsView,
): Pick<
  Handlers,
  "chats" | "ping" | "memory" | "log" | "reply" | "editorAnswer" | "registryList" | "registryInstall" | "registryRemove"
> {
  return {
    chats: () =>
      [...host.entries()].map(([chat, e]) => ({
        chat,
        agent: e.chat.agentName,
        state: statusOf(e.chat).state,
        pid: e.chat.pid,
      })),
    ping: () => ({ pid: process.pid, node: process.version, cgroups: cgroupSupport(), codeCache: codeCacheStatus() }),
    memory: (p) => memory(p.gc === true, p.snapshot),
    log: (p) => {
      const e = p.chat !== undefined ? host.find(p.chat) : undefined;
      e?.chat.traceNote("lua-error", p.details ? `${p.message}\n${p.details}` : p.message);
      return null;
    },
    reply: (p) => {
      host.answerQuestion(p.key, p.value);
      return null;
    },
    editorAnswer: (p) => {
      host.answerEditor(p.key, p.valueJson, p.error);
      return null;
    },
    registryList: (p) => registryList(p),
    registryInstall: (p) =>
      registryInstall(p, (message) => host.notify(`acpchat: ${genericRedactor.text(message)}`, "info")),
    registryRemove: (p) => removeAgent(p.dir, p.id),
  };
}

/** The host's memory, after a full garbage collection when asked (for the benchmarks). */
function memory(
  collect: boolean,
  snapshot?: string,
): { rss: number; heapUsed: number; codeUsed: number; external: number; resources: string[] } {
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
