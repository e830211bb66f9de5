/**
 * What the transcript should say, as plain data for the Lua side (which decides how it looks).
 * Node owns the content: tool call summaries, diff figures, terminal tails, plan entries.
 */
import type { Block, SessionState, ToolCallState } from "../session/session-state.js";
import { contentText } from "../session/session-state.js";
import { summarizeDiff } from "./diff-summary.js";

export type ToolContentView =
  | { type: "text"; text: string }
  | { type: "diff"; path: string; added: number; removed: number; isNew: boolean }
  | { type: "terminal"; id: string; tail: string; exit?: string };

export type BlockView =
  | { id: string; type: "turn"; turn: number }
  | { id: string; type: "user" | "agent" | "thought"; text: string }
  | {
      id: string;
      type: "tool";
      toolCallId: string;
      title: string;
      kind: string;
      status: string;
      locations: { path: string; line?: number | null }[];
      content: ToolContentView[];
      input?: string;
    }
  | { id: string; type: "plan"; entries: { content: string; status: string; priority: string }[] }
  | { id: string; type: "note"; text: string; level: string };

const TAIL_LINES = 8;
const INPUT_CHARS = 200;

export function blockView(b: Block): BlockView {
  switch (b.type) {
    case "turn":
      return { id: b.id, type: "turn", turn: b.turn };
    case "user":
    case "agent":
    case "thought":
      return { id: b.id, type: b.type, text: b.text };
    case "tool":
      return toolView(b.id, b.call);
    case "plan":
      return { id: b.id, type: "plan", entries: b.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })) };
    case "note":
      return { id: b.id, type: "note", text: b.text, level: b.level };
  }
}

function toolView(id: string, call: ToolCallState): BlockView {
  const content: ToolContentView[] = [];
  for (const c of call.content) {
    if (c.type === "content") content.push({ type: "text", text: contentText(c.content) });
    else if (c.type === "diff") content.push({ type: "diff", path: c.path, ...summarizeDiff(c.oldText, c.newText, c.path) });
    else {
      const t = call.terminals[c.terminalId];
      content.push({ type: "terminal", id: c.terminalId, tail: tail(t?.tail ?? ""), exit: t?.exit });
    }
  }
  // Terminals streamed through _meta (claude-agent-acp, codex-acp) have no terminal content entry.
  for (const [tid, t] of Object.entries(call.terminals)) {
    if (!call.content.some((c) => c.type === "terminal" && c.terminalId === tid)) content.push({ type: "terminal", id: tid, tail: tail(t.tail), exit: t.exit });
  }
  return {
    id,
    type: "tool",
    toolCallId: call.toolCallId,
    title: call.title,
    kind: call.kind,
    status: call.status,
    locations: call.locations.map((l) => ({ path: l.path, line: l.line })),
    content,
    input: compactInput(call.rawInput),
  };
}

function tail(s: string): string {
  const lines = s.replace(/\n$/, "").split("\n");
  return lines.slice(-TAIL_LINES).join("\n");
}

export function compactInput(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const s = typeof raw === "string" ? raw : JSON.stringify(raw);
  if (!s || s === "{}") return undefined;
  return s.length > INPUT_CHARS ? `${s.slice(0, INPUT_CHARS)}…` : s;
}

/** The one visible state of a chat (winbar, statusline, and what the keys do). */
export type ChatStateName = "starting" | "signing_in" | "ready" | "running" | "cancelling" | "crashed" | "closed";

export interface ChatFacts {
  agent: string;
  /** The chat's lifecycle (src/session/chat.ts). */
  lifecycle: "starting" | "signing_in" | "ready" | "failed" | "closed";
  /** Why it failed, for the user. */
  failure?: string;
  sessionId?: string;
  cwd: string;
  /** Prompts waiting for the agent, oldest first. */
  queued: { id: number; text: string }[];
}

export interface StatusView {
  agent: string;
  state: ChatStateName;
  /** What a running turn is doing (prompting, streaming, waiting_permission). */
  activity: string;
  reason?: string;
  title?: string;
  mode?: string;
  model?: string;
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } | null };
  stopReason?: string;
  commands: { name: string; description: string; hint?: string }[];
  sessionId?: string;
  cwd: string;
  queued: { id: number; text: string }[];
  /** What the pickers and completion offer, held in Lua so that they need no round trip. */
  modes: { current?: string; available: { id: string; name: string; description?: string }[] };
  options: OptionView[];
  legacyModels?: { current: string; values: { value: string; name: string }[] };
}

export interface OptionView {
  id: string;
  name: string;
  category?: string;
  type: string;
  current: unknown;
  values: { value: string | boolean; name: string }[];
}

export function stateName(f: ChatFacts, s: SessionState): ChatStateName {
  switch (f.lifecycle) {
    case "failed":
      return "crashed";
    case "ready":
      return s.turnState === "idle" ? "ready" : s.turnState === "cancelling" ? "cancelling" : "running";
    default:
      return f.lifecycle;
  }
}

export function statusView(f: ChatFacts, s: SessionState): StatusView {
  const state = stateName(f, s);
  return {
    agent: f.agent,
    state,
    activity: s.turnState,
    reason: state === "crashed" ? f.failure : undefined,
    title: s.title,
    mode: s.currentMode,
    model: s.currentModel,
    usage: s.usage,
    stopReason: s.lastStopReason,
    commands: s.commands.map((c) => ({ name: c.name, description: c.description, hint: c.input?.hint })),
    sessionId: f.sessionId,
    cwd: f.cwd,
    queued: f.queued,
    modes: { current: s.modes?.currentModeId, available: s.modes?.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined })) ?? [] },
    options: optionViews(s),
    legacyModels: s.legacyModels && {
      current: s.legacyModels.currentModelId,
      values: s.legacyModels.availableModels.map((m) => ({ value: m.modelId, name: m.name })),
    },
  };
}

/** Config options (select and boolean) as the pickers show them. */
function optionViews(s: SessionState): OptionView[] {
  return s.configOptions.map((o) => ({
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
}
