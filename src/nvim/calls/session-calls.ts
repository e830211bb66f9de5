/**
 * Calls about an agent's sessions (list, delete, rename): asked through a live chat of that
 * agent when there is one, else through a short-lived agent that the asking chat's close aborts.
 * A listing the picker abandons (it closed) stops paging at once.
 */
import type { Chat } from "../../session/chat/chat.js";
import { deleteSession, listSessions, renameSession, type SessionsParams } from "../../session/session-commands.js";
import type { AgentParams } from "../contract.js";
import { agentSpec, type Entry, type Handlers } from "../chat-entry.js";

/** What the session calls need of the host. */
export interface SessionCallsView {
  /** Run `fn` with a signal that aborts when chat `chat` closes. */
  probe<T>(chat: number | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Every open chat. */
  all(): Iterable<Entry>;
}

export function sessionCalls(
  host: SessionCallsView,
): Pick<Handlers, "sessions" | "sessionsAbandon" | "deleteSession" | "renameSession"> {
  /** A live, ready chat with this agent, to ask about sessions without starting another. */
  const liveChat = (agent: string): Chat | undefined => {
    for (const e of host.all()) if (e.chat.agentName === agent && e.chat.status === "ready") return e.chat;
    return undefined;
  };
  /** The listings under way by Lua's id: the picker abandons its own when it closes. */
  const listings = new Map<number, AbortController>();
  return {
    sessions: async (p) => {
      // Registered before the first await: an abandon sent right after this call finds it.
      const mine = p.listing === undefined ? undefined : new AbortController();
      if (mine && p.listing !== undefined) listings.set(p.listing, mine);
      try {
        if (mine) {
          // A pick typed while the host starts reaches it in the same read as this call: the
          // abandon is heard first, and no agent is spawned (and killed) for nothing.
          await new Promise((r) => setImmediate(r));
          if (mine.signal.aborted) throw new Error("cancelled: the listing was abandoned");
        }
        return await host.probe(p.chat, (closed) =>
          listSessions(
            sessionsParams(p),
            liveChat(p.agent.name),
            mine ? AbortSignal.any([closed, mine.signal]) : closed,
          ),
        );
      } finally {
        if (p.listing !== undefined && listings.get(p.listing) === mine) listings.delete(p.listing);
      }
    },
    sessionsAbandon: (p) => {
      listings.get(p.listing)?.abort();
      listings.delete(p.listing);
      return null;
    },
    deleteSession: (p) =>
      host.probe(p.chat, (signal) =>
        deleteSession({ ...sessionsParams(p), sessionId: p.sessionId }, liveChat(p.agent.name), signal),
      ),
    renameSession: async (p) => {
      const shown = [...host.all()].find((e) => e.chat.agentName === p.agent.name && e.chat.sessionId === p.sessionId);
      // Asked through the chat that holds the session when there is one (its agent has it in memory).
      const live = shown?.chat.status === "ready" ? shown.chat : liveChat(p.agent.name);
      const r = await renameSession(
        { ...sessionsParams(p), sessionId: p.sessionId, title: p.title },
        live,
        shown?.chat,
      );
      shown?.queue.push([{ type: "meta" }]);
      return r;
    },
  };
}

function sessionsParams(p: {
  agent: AgentParams;
  cwd: string;
  sessionIndex?: string;
  unstable?: boolean;
}): SessionsParams {
  return { agent: agentSpec(p.agent), cwd: p.cwd, sessionIndex: p.sessionIndex, unstable: p.unstable };
}
