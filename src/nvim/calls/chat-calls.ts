/** Calls about one open chat: prompts, cancel, modes and options, permissions, logs, terminals, subagents. */
import { subagentView } from "../../view/subagent-view.js";
import { takenBack, type ChatLookup, type Handlers } from "../chat-entry.js";

type ChatCalls = Pick<
  Handlers,
  | "send"
  | "cancel"
  | "setMode"
  | "setOption"
  | "permissions"
  | "permissionRemove"
  | "toolDiffs"
  | "trace"
  | "terminal"
  | "logout"
  | "subagent"
  | "forkSource"
  | "subagentCancel"
  | "toolCancel"
>;

export function chatCalls(chats: ChatLookup): ChatCalls {
  const chat = (id: number) => chats.get(id).chat;
  return {
    // An empty Lua table may cross as a map: only a list of paths is taken as the editor's word.
    send: (p) =>
      chat(p.chat).submit(
        p.text,
        p.context ?? [],
        Array.isArray(p.unsaved) ? p.unsaved.filter((x) => typeof x === "string") : undefined,
      ),
    cancel: (p) => ({ takenBack: chat(p.chat).cancel().map(takenBack) }),
    setMode: async (p) => {
      await chat(p.chat).setMode(p.mode);
      return null;
    },
    setOption: async (p) => {
      await chat(p.chat).setOption(p.option, p.value);
      return null;
    },
    permissions: (p) => chats.get(p.chat).rules.list(),
    permissionRemove: (p) => chats.get(p.chat).rules.remove(p.rule),
    toolDiffs: async (p) => {
      const { chat, port } = chats.get(p.chat);
      const diffs = await port.resolveDiffs(p.toolCallId, chat.toolCallDiffs(p.toolCallId));
      return diffs.map((d) => ({ path: d.path, oldText: d.oldText ?? undefined, newText: d.newText }));
    },
    trace: (p) =>
      chat(p.chat)
        .traceEntries(p.filter)
        .map(({ payload, ...e }) => ({ ...e, payloadJson: JSON.stringify(payload) ?? "null" })),
    terminal: (p) =>
      chat(p.chat)
        .terminalViews()
        .filter((t) => !p.terminal || t.id === p.terminal),
    logout: async (p) => {
      await chat(p.chat).logout();
      return null;
    },
    subagent: (p) => subagentView(chat(p.chat).child(p.sessionId), p.sessionId),
    forkSource: (p) => chat(p.chat).forkSource(),
    subagentCancel: (p) => {
      chat(p.chat).cancelChild(p.sessionId);
      return null;
    },
    toolCancel: async (p) => {
      await chat(p.chat).work.cancel(p.toolCallId);
      return null;
    },
  };
}
