/**
 * Session commands that reach beyond one chat: listing and deleting the project's sessions
 * (through a live chat with that agent, or a short-lived connection), and the option pickers.
 */
import type { AgentCommand } from "../agent/agent-process.js";
import { withAgent } from "../session/agent-probe.js";
import type { Chat } from "../session/chat.js";
import { SessionIndex } from "../session/session-index.js";
import { Redactor, commandSecrets } from "../trace/redact.js";

export interface AgentSpec {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Applied when a session starts. */
  mode?: string;
  model?: string;
  options?: Record<string, string | boolean>;
}

export interface SessionsParams {
  agent: AgentSpec;
  cwd: string;
  sessionIndex?: string;
}

export interface SessionChoice {
  sessionId: string;
  title?: string;
  updatedAt?: string;
  cwd: string;
  source: "agent" | "index" | "both";
}

type Client = NonNullable<Chat["client"]>;

function command(a: AgentSpec, cwd: string): AgentCommand {
  return { command: a.command, args: a.args ?? [], env: a.env ?? {}, cwd: a.cwd ?? cwd };
}

/** Run `fn` with a client of this agent: a live chat's, else a short-lived connection's. */
function withClient<T>(p: SessionsParams, live: Chat | undefined, fn: (c: Client) => Promise<T>): Promise<T> {
  return live?.client ? fn(live.client) : withAgent(command(p.agent, p.cwd), fn);
}

/**
 * Past sessions in `cwd`: the agent's own list (session/list, when it supports it) merged with
 * the client's index, newest first; plus what can be done with them.
 */
export async function listSessions(p: SessionsParams, live: Chat | undefined): Promise<{ sessions: SessionChoice[]; canDelete: boolean; canOpen: boolean }> {
  const index = new SessionIndex(p.sessionIndex);
  const { listed, canDelete, canOpen } = await withClient(p, live, async (client) => ({
    listed: client.supports("list") ? await client.listSessions(p.cwd) : [],
    canDelete: client.supports("delete"),
    canOpen: client.supports("load") || client.supports("resume"),
  }));
  const out = new Map<string, SessionChoice>();
  for (const s of index.list(p.cwd, p.agent.name)) out.set(s.sessionId, { sessionId: s.sessionId, title: s.title, updatedAt: s.updatedAt, cwd: s.cwd, source: "index" });
  // Titles come from the agent: redacted with its secrets like everything else shown.
  const redactor = new Redactor(commandSecrets(p.agent));
  for (const s of listed) {
    const known = out.get(s.sessionId);
    out.set(s.sessionId, { sessionId: s.sessionId, title: s.title != null ? redactor.text(s.title) : known?.title, updatedAt: s.updatedAt ?? known?.updatedAt, cwd: s.cwd, source: known ? "both" : "agent" });
  }
  const sessions = [...out.values()].sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? ""));
  return { sessions, canDelete, canOpen };
}

export async function deleteSession(p: SessionsParams & { sessionId: string }, live: Chat | undefined): Promise<boolean> {
  await withClient(p, live, (client) => client.deleteSession(p.sessionId));
  new SessionIndex(p.sessionIndex).remove(p.agent.name, p.sessionId);
  return true;
}

/** Set a config option; the "__legacy_model" pseudo-option reaches agents with a models list. */
export async function setOption(chat: Chat, option: string, value: string | boolean): Promise<void> {
  if (option === "__legacy_model") return chat.setModel(String(value));
  const opt = chat.state.configOptions.find((o) => o.id === option);
  if (!opt) throw new Error(`acpchat: ${chat.opts.agentName} has no option "${option}"`);
  if (opt.type === "boolean" && typeof value !== "boolean") value = value === "true" || value === "on";
  await chat.setConfigOption(option, value);
}
