/**
 * Session commands that reach beyond one chat: listing and deleting the project's sessions
 * (through a live chat with that agent, or a short-lived connection), and the option pickers.
 */
import type { AgentCommand } from "../agent/agent-process.js";
import { withAgent } from "../session/agent-probe.js";
import type { Chat } from "../session/chat.js";
import { SessionIndex } from "../session/session-index.js";

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
  session_index?: string;
}

export interface SessionChoice {
  session_id: string;
  title?: string;
  updated_at?: string;
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
export async function listSessions(p: SessionsParams, live: Chat | undefined): Promise<{ sessions: SessionChoice[]; can_delete: boolean; can_open: boolean }> {
  const index = new SessionIndex(p.session_index);
  const { listed, canDelete, canOpen } = await withClient(p, live, async (client) => ({
    listed: client.supports("list") ? await client.listSessions(p.cwd) : [],
    canDelete: client.supports("delete"),
    canOpen: client.supports("load") || client.supports("resume"),
  }));
  const out = new Map<string, SessionChoice>();
  for (const s of index.list(p.cwd, p.agent.name)) out.set(s.sessionId, { session_id: s.sessionId, title: s.title, updated_at: s.updatedAt, cwd: s.cwd, source: "index" });
  for (const s of listed) {
    const known = out.get(s.sessionId);
    out.set(s.sessionId, { session_id: s.sessionId, title: s.title ?? known?.title, updated_at: s.updatedAt ?? known?.updated_at, cwd: s.cwd, source: known ? "both" : "agent" });
  }
  const sessions = [...out.values()].sort((a, b) => (b.updated_at ?? "").localeCompare(a.updated_at ?? ""));
  return { sessions, can_delete: canDelete, can_open: canOpen };
}

export async function deleteSession(p: SessionsParams & { session_id: string }, live: Chat | undefined): Promise<boolean> {
  await withClient(p, live, (client) => client.deleteSession(p.session_id));
  new SessionIndex(p.session_index).remove(p.agent.name, p.session_id);
  return true;
}

/** Config options (select and boolean), and legacy models, for the pickers. */
export function optionsOf(chat: Chat) {
  const s = chat.state;
  const options = s.configOptions.map((o) => ({
    id: o.id,
    name: o.name,
    category: o.category ?? undefined,
    type: o.type,
    current: o.currentValue,
    values:
      o.type === "select"
        ? o.options.flatMap((x) => ("options" in x ? (x.options as { value: string; name: string }[]) : [x as { value: string; name: string }])).map((x) => ({ value: x.value, name: x.name }))
        : [
            { value: true, name: "on" },
            { value: false, name: "off" },
          ],
  }));
  const legacy = s.legacyModels && {
    current: s.legacyModels.currentModelId,
    values: s.legacyModels.availableModels.map((m) => ({ value: m.modelId, name: m.name })),
  };
  return { options, legacy_models: legacy };
}

/** Set a config option; the "__legacy_model" pseudo-option reaches agents with a models list. */
export async function setOption(chat: Chat, option: string, value: string | boolean): Promise<void> {
  if (option === "__legacy_model") return chat.setModel(String(value));
  const opt = chat.state.configOptions.find((o) => o.id === option);
  if (!opt) throw new Error(`acpchat: ${chat.opts.agentName} has no option "${option}"`);
  if (opt.type === "boolean" && typeof value !== "boolean") value = value === "true" || value === "on";
  await chat.setConfigOption(option, value);
}
