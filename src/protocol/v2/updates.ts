/**
 * ACP v2 `session/update` as the v1 updates the session already applies, one session's state
 * at a time: messages, tool calls and terminals are upserts by id in v2 (omitted = unchanged,
 * null = clears, chunks append), so this keeps what v1's shapes need to say the same (a tool
 * call's content for the chunks that append to it, which terminals a tool call shows, each
 * terminal's decoded output). `_`-prefixed values (extensions) are tolerated everywhere: an
 * unknown update kind, status or content is left out, never an error.
 * Spec: the v2 draft (schema/v2/schema.json of @agentclientprotocol/sdk 2.4).
 */
import { StringDecoder } from "node:string_decoder";
import { diffContents, type FileReader, type V1Content } from "./diffs.js";
import { CONTROLS_META, type ControlsMeta, MESSAGE_META, PLAN_META, REPLACE_META } from "./meta.js";

export type V1Update = Record<string, unknown> & { sessionUpdate: string };
type Obj = Record<string, unknown>;

/** One piece of work the agent runs apart from the foreground (a `state_update`'s `background`). */
export type BackgroundWork =
  | { type: "terminal"; terminalId: string }
  | { type: "tool_call"; toolCallId: string }
  /** Custom or future work: it still runs, though the client cannot say what it is. */
  | { type: "other" };

/**
 * What a `state_update` says: the agent works, or is idle (with why its work stopped, when it
 * says); `background`: the complete list of work that goes on apart from it, when the agent
 * reports it (undefined: not reported, which is not "none").
 */
export type StateChange = ({ state: "running" } | { state: "idle"; stopReason?: string; error?: string }) & {
  background?: BackgroundWork[];
};

export interface Translated {
  updates: V1Update[];
  state?: StateChange;
}

const V1_KINDS = new Set([
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
]);
const V1_STATUS = new Set(["pending", "in_progress", "completed", "failed"]);
/** Updates whose v2 shape is v1's. */
export const SAME_SHAPE_KINDS: ReadonlySet<string> = new Set([
  "available_commands_update",
  "config_option_update",
  "session_info_update",
  "usage_update",
  "notice",
  "compaction_update",
  "compaction_summary_chunk",
]);
const PLAN_STATUS = new Set(["pending", "in_progress", "completed"]);
const PLAN_PRIORITY = new Set(["high", "medium", "low"]);
const CONTENT_BLOCKS = new Set(["text", "image", "audio", "resource_link", "resource"]);
/** A terminal's output kept whole (characters), as for terminals streamed in v1 `_meta`. */
const TERMINAL_CHARS = 1_000_000;

const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

interface ToolCallKept {
  content: V1Content[];
  title?: string;
  name?: string;
  meta?: Obj;
  /** Its `capabilities.cancel`, as last patched. */
  cancel?: boolean;
}

interface TerminalState {
  text: string;
  decoder: StringDecoder;
  command?: string;
  exit?: { exit_code: number | null; signal: string | null };
  toolCalls: Set<string>;
  /** Its `capabilities.cancel`, as last patched. */
  cancel?: boolean;
}

/** One v2 session's translation state. */
export class V2Session {
  /** Each tool call as last sent: content (v1 replaces the whole array; v2 chunks append to it), title, name, `_meta`. */
  private readonly toolCalls = new Map<string, ToolCallKept>();
  private readonly terminals = new Map<string, TerminalState>();
  /** User messages that are the client's own prompts, echoed: shown already when sent. */
  readonly echoes = new Set<string>();
  /** A prompt was sent and not acknowledged yet: the first user message is its echo. */
  awaitingEcho = false;

  constructor(private readonly read: FileReader) {}

  async translate(update: unknown): Promise<Translated> {
    const u = obj(update) ?? {};
    const kind = str(u.sessionUpdate) ?? "";
    switch (kind) {
      case "user_message_chunk":
      case "user_message":
        return { updates: this.userMessage(u, kind === "user_message") };
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return { updates: this.chunk(kind, u) };
      case "agent_message":
        return { updates: this.whole("agent_message_chunk", u) };
      case "agent_thought":
        return { updates: this.whole("agent_thought_chunk", u) };
      case "tool_call_update":
        return { updates: await this.toolCall(u) };
      case "tool_call_content_chunk":
        return { updates: await this.toolCallChunk(u) };
      case "terminal_update":
        return { updates: this.terminalUpdate(u) };
      case "terminal_output_chunk":
        return { updates: this.terminalChunk(u) };
      case "state_update": {
        const state = stateChange(u);
        // Terminals no tool call shows get blocks of their own: all at idle, the background's at once.
        const listed = new Set((state?.background ?? []).flatMap((w) => (w.type === "terminal" ? [w.terminalId] : [])));
        const updates = state?.state === "idle" ? this.unshownTerminals() : this.unshownTerminals(listed);
        return { updates, state };
      }
      case "plan_update":
        return { updates: planUpdate(obj(u.plan)) };
      default:
        if (SAME_SHAPE_KINDS.has(kind)) return { updates: [u as V1Update] };
        // `_`-prefixed: an extension this client does not know, left out quietly; any other
        // unknown kind goes on, so that the session notes it as unknown.
        return { updates: kind.startsWith("_") || kind === "" ? [] : [u as V1Update] };
    }
  }

  // ---------- messages ----------

  private userMessage(u: Obj, whole: boolean): V1Update[] {
    const id = str(u.messageId);
    if (id === undefined) return [];
    if (this.awaitingEcho && !this.echoes.has(id)) {
      this.awaitingEcho = false;
      this.echoes.add(id);
    }
    if (this.echoes.has(id)) return [];
    return whole ? this.whole("user_message_chunk", u) : this.chunk("user_message_chunk", u);
  }

  private chunk(sessionUpdate: string, u: Obj): V1Update[] {
    const id = str(u.messageId);
    const content = obj(u.content);
    if (id === undefined || !content || !CONTENT_BLOCKS.has(str(content.type) ?? "")) return [];
    return [{ sessionUpdate, content, _meta: { [MESSAGE_META]: { id } } }];
  }

  /** A whole message (v2 `agent_message` …): its content replaces what the message showed. */
  private whole(sessionUpdate: string, u: Obj): V1Update[] {
    const id = str(u.messageId);
    if (id === undefined || !("content" in u)) return [];
    const blocks = (Array.isArray(u.content) ? u.content : []).map(obj).filter((b): b is Obj => !!b);
    const text = blocks.map((b) => (b.type === "text" ? (str(b.text) ?? "") : "")).join("");
    const out: V1Update[] = [
      { sessionUpdate, content: { type: "text", text }, _meta: { [MESSAGE_META]: { id, replace: true } } },
    ];
    for (const b of blocks)
      if (b.type !== "text" && CONTENT_BLOCKS.has(str(b.type) ?? ""))
        out.push({ sessionUpdate, content: b, _meta: { [MESSAGE_META]: { id } } });
    return out;
  }

  // ---------- tool calls ----------

  private async toolCall(u: Obj): Promise<V1Update[]> {
    const id = str(u.toolCallId);
    if (id === undefined) return [];
    const known = this.toolCalls.get(id);
    const state = known ?? { content: [] };
    this.toolCalls.set(id, state);
    const fields = await this.fields(u);
    const out: V1Update = { sessionUpdate: known ? "tool_call_update" : "tool_call", toolCallId: id, ...fields.v1 };
    // What the tool call is called: its title, else its tool's name, else its id (null clears either).
    if ("title" in u && u.title !== undefined) state.title = str(u.title) || undefined;
    if ("name" in u && u.name !== undefined) state.name = str(u.name) || undefined;
    if (!known || "title" in out || "name" in u) out.title = state.title ?? state.name ?? id;
    if (typeof u.name === "string") out.name = u.name;
    // `_meta` is a patch by top-level key: null clears it all, a key set to null is removed.
    if ("_meta" in u && u._meta !== undefined) {
      const patch = obj(u._meta);
      const merged: Obj = patch ? { ...state.meta } : {};
      for (const [k, v] of Object.entries(patch ?? {}))
        if (v === null) delete merged[k];
        else merged[k] = v;
      state.meta = merged;
      out._meta = merged;
    }
    if (fields.content) state.content = fields.content;
    const controls: ControlsMeta = {};
    if ("capabilities" in u && u.capabilities !== undefined) {
      // An object (even `{}`) grants it; null, omitted or malformed does not.
      state.cancel = obj(obj(u.capabilities)?.cancel) !== undefined;
      controls.cancel = state.cancel;
    }
    if (u.status === "cancelled") controls.cancelled = true;
    if (u.status === "paused") controls.paused = true;
    if (Object.keys(controls).length > 0) out._meta = { ...obj(out._meta), [CONTROLS_META]: controls };
    return [out, ...fields.links.flatMap((t) => this.link(id, t))];
  }

  private async toolCallChunk(u: Obj): Promise<V1Update[]> {
    const id = str(u.toolCallId);
    if (id === undefined) return [];
    const known = this.toolCalls.has(id);
    const state = this.toolCalls.get(id) ?? { content: [] };
    this.toolCalls.set(id, state);
    const item = obj(u.content);
    const terminal = item?.type === "terminal" ? str(item.terminalId) : undefined;
    if (terminal !== undefined) {
      const head: V1Update[] = known ? [] : [{ sessionUpdate: "tool_call", toolCallId: id, title: id }];
      return [...head, ...this.link(id, terminal)];
    }
    state.content = [...state.content, ...(await this.content(item))];
    return [
      {
        sessionUpdate: known ? "tool_call_update" : "tool_call",
        toolCallId: id,
        ...(known ? {} : { title: id }),
        content: state.content,
      },
    ];
  }

  /**
   * A v2 tool call's fields as v1's: null clears (to what v1 shows as empty), an unknown status
   * leaves it as it was, an unknown kind is `other`; terminal content is shown through the
   * tool call's terminals (`links`), the rest as v1 content.
   */
  async fields(u: Obj): Promise<{ v1: Obj; content?: V1Content[]; links: string[] }> {
    const v1: Obj = {};
    const links: string[] = [];
    if ("title" in u && u.title !== undefined) v1.title = str(u.title) ?? "";
    if ("kind" in u && u.kind !== undefined) v1.kind = V1_KINDS.has(str(u.kind) ?? "") ? u.kind : "other";
    if ("status" in u && u.status !== undefined) {
      const s = str(u.status);
      if (s === null || u.status === null || s === "paused") v1.status = "pending";
      else if (s && V1_STATUS.has(s)) v1.status = s;
      // `cancelled` is the client's own display state: the turn settles it.
      else if (s === "cancelled") v1.status = "failed";
    }
    if ("locations" in u && u.locations !== undefined)
      v1.locations = (Array.isArray(u.locations) ? u.locations : [])
        .map(obj)
        .filter((l): l is Obj => typeof l?.path === "string")
        .map((l) => (typeof l.line === "number" ? { path: l.path, line: l.line } : { path: l.path }));
    if ("rawInput" in u) v1.rawInput = u.rawInput;
    if ("rawOutput" in u) v1.rawOutput = u.rawOutput;
    let content: V1Content[] | undefined;
    if ("content" in u && u.content !== undefined) {
      content = [];
      for (const raw of Array.isArray(u.content) ? u.content : []) {
        const item = obj(raw);
        const terminal = item?.type === "terminal" ? str(item.terminalId) : undefined;
        if (terminal !== undefined) links.push(terminal);
        else content.push(...(await this.content(item)));
      }
      v1.content = content;
    }
    return { v1, content, links };
  }

  private async content(item: Obj | undefined): Promise<V1Content[]> {
    if (!item) return [];
    if (item.type === "diff") return diffContents(item, this.read);
    if (item.type === "content") {
      const block = obj(item.content);
      if (block && CONTENT_BLOCKS.has(str(block.type) ?? "")) return [{ type: "content", content: block } as V1Content];
    }
    return [];
  }

  // ---------- terminals (agent-owned, display only) ----------

  private terminal(id: string): TerminalState {
    let t = this.terminals.get(id);
    if (!t) {
      t = { text: "", decoder: new StringDecoder("utf8"), toolCalls: new Set() };
      this.terminals.set(id, t);
    }
    return t;
  }

  /** A tool call shows terminal `id`: what it has so far (command, output, exit) goes to it. */
  private link(toolCallId: string, id: string): V1Update[] {
    const t = this.terminal(id);
    if (t.toolCalls.has(toolCallId)) return [];
    t.toolCalls.add(toolCallId);
    const out = [
      meta(toolCallId, { terminal_info: { terminal_id: id, ...(t.command ? { command: t.command } : {}) } }),
    ];
    if (t.text)
      out.push(meta(toolCallId, { terminal_output: { terminal_id: id, data: t.text, [REPLACE_META]: true } }));
    if (t.exit) out.push(meta(toolCallId, { terminal_exit: { terminal_id: id, ...t.exit } }));
    if (t.cancel) out.push(meta(toolCallId, { [CONTROLS_META]: { terminals: { [id]: true } } }));
    return out;
  }

  /**
   * Terminals no tool call showed by the time the agent went idle: each gets a block of its own
   * (an execute tool call named for its command), so no output the agent streamed goes unseen.
   */
  private unshownTerminals(only?: Set<string>): V1Update[] {
    const out: V1Update[] = [];
    for (const [id, t] of this.terminals) {
      if (t.toolCalls.size > 0 || (only && !only.has(id))) continue;
      const toolCallId = `terminal:${id}`;
      const status = !t.exit ? "in_progress" : t.exit.exit_code === 0 ? "completed" : "failed";
      this.toolCalls.set(toolCallId, { content: [] });
      out.push(
        { sessionUpdate: "tool_call", toolCallId, title: t.command ?? `Terminal ${id}`, kind: "execute", status },
        ...this.link(toolCallId, id),
      );
    }
    return out;
  }

  private terminalUpdate(u: Obj): V1Update[] {
    const id = str(u.terminalId);
    if (id === undefined) return [];
    const t = this.terminal(id);
    const out: Obj[] = [];
    if ("command" in u && u.command !== undefined) t.command = str(u.command);
    if ("output" in u && u.output !== undefined) {
      // An authoritative snapshot: it replaces the output (a multibyte character split at the
      // end of it waits for the next chunk, as in a stream).
      t.decoder = new StringDecoder("utf8");
      const data = str(obj(u.output)?.data);
      t.text = clip(data ? t.decoder.write(Buffer.from(data, "base64")) : "");
      out.push({ terminal_output: { terminal_id: id, data: t.text, [REPLACE_META]: true } });
    }
    if ("exitStatus" in u && u.exitStatus !== undefined) {
      const e = obj(u.exitStatus);
      if (e) {
        t.exit = {
          exit_code: typeof e.exitCode === "number" ? e.exitCode : null,
          signal: str(e.signal) ?? null,
        };
        out.push({ terminal_exit: { terminal_id: id, ...t.exit } });
      } else t.exit = undefined;
    }
    if ("capabilities" in u && u.capabilities !== undefined) {
      t.cancel = obj(obj(u.capabilities)?.cancel) !== undefined;
      out.push({ [CONTROLS_META]: { terminals: { [id]: t.cancel } } });
    }
    return [...t.toolCalls].flatMap((tc) => out.map((m) => meta(tc, m)));
  }

  private terminalChunk(u: Obj): V1Update[] {
    const id = str(u.terminalId);
    const data = str(u.data);
    if (id === undefined || data === undefined) return [];
    const t = this.terminal(id);
    const text = t.decoder.write(Buffer.from(data, "base64"));
    if (!text) return [];
    t.text = clip(t.text + text);
    return [...t.toolCalls].map((tc) => meta(tc, { terminal_output: { terminal_id: id, data: text } }));
  }
}

function clip(s: string): string {
  return s.length > TERMINAL_CHARS ? s.slice(s.length - TERMINAL_CHARS) : s;
}

function meta(toolCallId: string, m: Obj): V1Update {
  return { sessionUpdate: "tool_call_update", toolCallId, _meta: m };
}

function stateChange(u: Obj): StateChange | undefined {
  const background = backgroundWork(u.background);
  const bg = background ? { background } : {};
  if (u.state === "running" || u.state === "requires_action") return { state: "running", ...bg };
  if (u.state !== "idle") return undefined; // an extension's state: nothing this client acts on
  const stop = str(u.stopReason);
  const error = obj(u.error);
  return {
    state: "idle",
    stopReason: stop,
    error: stop === "error" ? (str(error?.message) ?? "the agent reported an error") : undefined,
    ...bg,
  };
}

/** A `background` list; omitted, null or malformed (any item) is "not reported". */
function backgroundWork(list: unknown): BackgroundWork[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: BackgroundWork[] = [];
  for (const raw of list) {
    const w = obj(raw);
    const type = str(w?.type);
    if (!w || type === undefined) return undefined;
    if (type === "terminal" || type === "tool_call") {
      const id = str(type === "terminal" ? w.terminalId : w.toolCallId);
      if (id === undefined) return undefined;
      out.push(type === "terminal" ? { type, terminalId: id } : { type, toolCallId: id });
    } else out.push({ type: "other" });
  }
  return out;
}

/**
 * A v2 plan (`items`: the whole list of its entries, by plan id) as v1's whole plan, its id in
 * `_meta` so that each plan keeps a block of its own. A status or priority v1 has no word for
 * (`cancelled`, a `_`-prefixed extension) stands as `pending` / `medium` for v1's shape, the
 * v2 word kept beside it; other plan content (an extension) is left out.
 */
function planUpdate(plan: Obj | undefined): V1Update[] {
  const id = str(plan?.planId);
  if (plan?.type !== "items" || id === undefined || !Array.isArray(plan.entries)) return [];
  const entries = plan.entries.flatMap((e) => {
    const entry = obj(e);
    if (!entry) return [];
    const status = str(entry.status) ?? "pending";
    const priority = str(entry.priority) ?? "medium";
    const words = {
      ...(PLAN_STATUS.has(status) ? {} : { status }),
      ...(PLAN_PRIORITY.has(priority) ? {} : { priority }),
    };
    return [
      {
        content: str(entry.content) ?? "",
        status: PLAN_STATUS.has(status) ? status : "pending",
        priority: PLAN_PRIORITY.has(priority) ? priority : "medium",
        ...(Object.keys(words).length > 0 ? { _meta: { ...obj(entry._meta), [PLAN_META]: words } } : {}),
      },
    ];
  });
  return [{ sessionUpdate: "plan", entries, _meta: { [PLAN_META]: { id } } }];
}
