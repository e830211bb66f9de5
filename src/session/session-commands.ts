/**
 * Session commands that reach beyond one chat: listing and deleting the project's sessions
 * (through a live chat with that agent, or a short-lived connection), and the option pickers.
 */
import type { AgentCommand } from "../agent/agent-process.js";
import { withAgent } from "../session/agent-probe.js";
import type { Chat } from "../session/chat/chat.js";
import { SessionIndex } from "../session/session-index.js";
import { activeFeatures, featureOn, requireFeature, type FeatureConfig } from "./features/index.js";
import { Redactor, commandSecrets } from "../trace/redact.js";
import { oneLine } from "./one-line.js";
import type { SessionChoice } from "../wire/index.js";

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
  /** `v2-draft`: speak the ACP v2 draft when the agent accepts it. */
  protocol?: "v1" | "v2-draft";
}

export interface SessionsParams extends FeatureConfig {
  agent: AgentSpec;
  cwd: string;
  sessionIndex?: string;
}

type Client = NonNullable<Chat["client"]>;

function command(a: AgentSpec, cwd: string): AgentCommand {
  return { command: a.command, args: a.args ?? [], env: a.env ?? {}, cwd: a.cwd ?? cwd };
}

/**
 * Run `fn` with a client of this agent: a live chat's, else a short-lived connection's, ended
 * when `signal` aborts.
 */
function withClient<T>(
  p: SessionsParams,
  live: Chat | undefined,
  fn: (c: Client) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return live?.client
    ? fn(live.client)
    : withAgent(command(p.agent, p.cwd), fn, undefined, { modules: activeFeatures(p) }, signal, p.agent.protocol);
}

/**
 * Past sessions in `cwd`: the agent's own list (session/list, when it supports it) merged with
 * the client's index, newest first; plus what can be done with them. `signal` abandons it: no
 * further page is asked for, and a short-lived agent is ended.
 */
export async function listSessions(
  p: SessionsParams,
  live: Chat | undefined,
  signal?: AbortSignal,
): Promise<{ sessions: SessionChoice[]; canDelete: boolean; canOpen: boolean; canRename: boolean }> {
  const index = new SessionIndex(p.sessionIndex);
  const { listed, canDelete, canOpen, canRename } = await withClient(
    p,
    live,
    async (client) => ({
      // Through a live chat too: an abandoned listing stops paging (the chat's agent lives on).
      listed: client.supports("list") ? await client.listSessions(p.cwd, signal) : [],
      canDelete: client.supports("delete"),
      canOpen: client.supports("load") || client.supports("resume"),
      // session/set_title: the feature on here (a live chat's client has it from its own) and advertised.
      canRename: featureOn(p, "title") && client.supports("title"),
    }),
    signal,
  );
  if (signal?.aborted) throw new Error("cancelled: the listing was abandoned");
  const out = new Map<string, SessionChoice>();
  for (const s of index.list(p.cwd, p.agent.name))
    out.set(s.sessionId, {
      sessionId: s.sessionId,
      title: s.title,
      prompt: s.prompt,
      updatedAt: s.updatedAt,
      cwd: s.cwd,
      source: "index",
    });
  // Titles come from the agent: redacted with its secrets like everything else shown.
  const redactor = new Redactor(commandSecrets(p.agent));
  for (const s of listed) {
    const known = out.get(s.sessionId);
    out.set(s.sessionId, {
      sessionId: s.sessionId,
      title: s.title != null ? redactor.text(s.title) : known?.title,
      prompt: known?.prompt,
      updatedAt: s.updatedAt ?? known?.updatedAt,
      cwd: s.cwd,
      source: known ? "both" : "agent",
    });
  }
  const sessions = [...out.values()].sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? ""));
  return { sessions, canDelete, canOpen, canRename };
}

export async function deleteSession(
  p: SessionsParams & { sessionId: string },
  live: Chat | undefined,
  signal?: AbortSignal,
): Promise<boolean> {
  await withClient(p, live, (client) => client.deleteSession(p.sessionId), signal);
  new SessionIndex(p.sessionIndex).remove(p.agent.name, p.sessionId);
  return true;
}

/**
 * Rename a session (`session/set_title`, the title feature): the agent stores the title
 * (maybe normalized: the answer's title is the one to show); the client's index, and a live chat
 * showing that session, take it too.
 */
export async function renameSession(
  p: SessionsParams & { sessionId: string; title: string },
  live: Chat | undefined,
  shown: Chat | undefined,
): Promise<{ title: string }> {
  requireFeature(p, "title");
  const wanted = p.title.trim();
  if (wanted === "") throw new Error("a session's title cannot be empty");
  const stored = await withClient(p, live, async (client) => {
    if (!client.supports("title"))
      throw new Error(`${p.agent.name} cannot rename sessions (it does not advertise sessionCapabilities.title)`);
    return client.setSessionTitle(p.sessionId, wanted);
  });
  // Shown in a notification, the winbar and the picker: one line of at most 200 characters
  // (an agent's title with line breaks made a hit-enter prompt).
  const title = oneLine(new Redactor(commandSecrets(p.agent)).text(stored), 200);
  const index = new SessionIndex(p.sessionIndex);
  const known = index.list(p.cwd, p.agent.name).find((s) => s.sessionId === p.sessionId);
  index.touch({ agent: p.agent.name, sessionId: p.sessionId, cwd: known?.cwd ?? p.cwd, title });
  if (shown) {
    shown.retitle(title);
    shown.notice(`Renamed to "${title}".`);
  }
  return { title };
}
