/**
 * A chat as the Neovim host holds it: the Chat with its editor port, render queue, permission
 * rules, media folder and checkpoints; and the shapes the host's call handlers share.
 */
import type { TurnCheckpoints } from "../checkpoints/turns.js";
import type { RenderQueue } from "../view/render-queue.js";
import { statusView } from "../view/view-model.js";
import type { StatusView } from "../wire/index.js";
import type { MediaFiles } from "../session/attachments.js";
import type { Chat } from "../session/chat/chat.js";
import type { PermissionRules } from "../session/permission/rules.js";
import type { QueuedPrompt } from "../session/prompt-queue.js";
import type { AgentSpec } from "../session/session-commands.js";
import type { AgentParams, LuaMethod, LuaToNode, OpenParams, TakenBack } from "./contract.js";
import type { NvimPort } from "./nvim-port.js";

export interface Entry {
  params: OpenParams;
  chat: Chat;
  port: NvimPort;
  rules: PermissionRules;
  queue: RenderQueue;
  /** The chat's private folder for opened media and clipboard images (removed on close). */
  media: MediaFiles;
  /** Turn checkpoints; kept across restarts of the agent (the folder's history is the chat's). */
  checkpoints: TurnCheckpoints | undefined;
  /** How many times the chat was started again (restart-policy.ts); its block ids say which. */
  incarnation: number;
}

/** One handler per call of contract.ts. */
export type Handlers = {
  [M in LuaMethod]: (p: LuaToNode[M]["params"]) => LuaToNode[M]["result"] | Promise<LuaToNode[M]["result"]>;
};

/** The open chats, by the id Lua gave them (a closed one throws). */
export interface ChatLookup {
  get(id: number): Entry;
}

export function takenBack(p: QueuedPrompt): TakenBack {
  return { text: p.text, context: p.context };
}

/** The agent as the config gives it, with its environment and options as maps again. */
export function agentSpec(a: AgentParams): AgentSpec {
  return {
    ...a,
    env: Object.fromEntries((a.env ?? []).map((e) => [e.name, e.value])),
    options: Object.fromEntries((a.options ?? []).map((o) => [o.id, o.value])),
  };
}

export function statusOf(chat: Chat): StatusView {
  return statusView(
    {
      agent: chat.agentName,
      lifecycle: chat.status,
      failure: chat.failure,
      sessionId: chat.sessionId,
      cwd: chat.cwd,
      queued: chat.queue.view(),
      waiting: chat.waitingFor,
      continuedBy: chat.continuedBy,
      background: chat.work.background,
    },
    chat.state,
  );
}
