/**
 * The state of one ACP session, pure and synchronous: the ordered transcript, tool calls, plan,
 * commands, modes, config options, usage, session info, and the turn's state machine.
 * Each mutation returns the transcript events a view needs to redraw only what changed:
 * `add` (a new block at the end), `append` (text at the end of the last block), `update`
 * (a block redrawn in place) and `meta` (the header/status line).
 */
import type {
  AvailableCommand,
  ContentBlock,
  KnownSessionUpdate,
  LegacyModels,
  OptInSessionUpdate,
  PlanEntry,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from "../protocol/schema.js";
import {
  applyTerminalMeta,
  fillTerminalsFromRawOutput,
  metaTerminalsOf,
  showClientTerminal,
  type MetaTerminal,
} from "./tool-terminals.js";
import { planId } from "../protocol/v2/meta.js";
import { MessageBlocks } from "./message-blocks.js";
import { applyControls } from "./tool-controls.js";
import { mediaName, type MediaBlock } from "./media.js";
import type { FileChange } from "../checkpoints/types.js";
import {
  contentText,
  ENDED,
  flatten,
  isOptIn,
  LATE_WORK,
  mergeKnownToolCall,
  isOpen,
  metaToolName,
  noticeLevel,
  optionName,
  promptText,
  toolBlockId,
  type Block,
  type FeatureBlock,
  type ToolCallState,
  type TranscriptEvent,
  type TurnState,
  type Usage,
} from "./blocks.js";

export class SessionState {
  /** The turn whose reply header was drawn. */
  private replyTurn = 0;

  /** `agent`: the name the reply headers show; `idPrefix` begins every block id (one per incarnation of a chat). */
  constructor(
    private readonly agent = "agent",
    readonly idPrefix = "",
  ) {}

  readonly blocks: Block[] = [];
  private readonly byId = new Map<string, Block>();
  private readonly messages = new MessageBlocks();
  readonly toolCalls = new Map<string, ToolCallState>();
  plan: PlanEntry[] = [];
  commands: AvailableCommand[] = [];
  modes: SessionModeState | undefined;
  configOptions: SessionConfigOption[] = [];
  legacyModels: LegacyModels | undefined;
  usage: Usage | undefined;
  /** The last turn's tokens (PromptResponse.usage, the usage feature). */
  turnUsage: Record<string, number> | undefined;
  title: string | undefined;
  updatedAt: string | undefined;
  turnState: TurnState = "idle";
  turn = 0;
  lastStopReason: StopReason | undefined;
  private pendingPermissions = 0;
  /** Work after the turn's end (claude-agent-acp, after a cancel; v2 work with no prompt): the chat says it is working. */
  lateWork = false;
  /** ACP v2: the agent said it works without a prompt; it ends when the agent says idle. */
  private agentRuns = false;
  stateReported = false; // ACP v2: the agent says when it works; what it sends after idle is no late work
  private turnsEnded = 0;
  private appendsSinceFlatten = 0;
  private nextBlock = 0;
  /** Number of unknown or invalid updates seen, by variant name (shown once each in the log). */
  readonly unknownKinds = new Map<string, number>();

  // ---------- the turn ----------

  /** The user sends a prompt: a new turn with its header and the user's words. */
  beginTurn(prompt: ContentBlock[]): TranscriptEvent[] {
    this.turn++;
    this.turnState = "prompting";
    this.lateWork = false;
    const ev = [
      this.addBlock({ type: "turn", turn: this.turn }),
      this.addBlock({ type: "user", text: promptText(prompt), turn: this.turn }),
    ];
    for (const c of prompt)
      if (c.type === "image" || c.type === "audio")
        ev.push(this.addBlock({ type: "media", role: "user", media: c, name: mediaName(c), turn: this.turn }));
    return [...ev, { type: "meta" }];
  }

  /** The `session/prompt` response arrived (or the turn failed). */
  endTurn(stopReason: StopReason | undefined): TranscriptEvent[] {
    this.turnState = "idle";
    this.turnsEnded++;
    this.lateWork = false;
    this.lastStopReason = stopReason;
    this.pendingPermissions = 0;
    // The reply is done growing: its text keeps no rope nodes (they add up over a long session).
    for (let i = this.blocks.length - 1; i >= 0 && this.blocks[i]!.turn === this.turn; i--) {
      const b = this.blocks[i]!;
      if ((b.type === "agent" || b.type === "thought") && typeof b.text === "string") flatten(b.text);
    }
    this.appendsSinceFlatten = 0;
    // Nothing of this turn may keep spinning: unfinished tool calls say they did not finish.
    const events = this.settleToolCalls(this.turn, stopReason === "cancelled" ? "cancelled" : "unfinished");
    // A turn that did not simply end says so where it ended.
    if (stopReason !== "end_turn")
      events.push(this.addBlock({ type: "end", reason: stopReason ?? "error", turn: this.turn }));
    return [...events, { type: "meta" }];
  }

  /** The reply's header, once per turn, before the agent's first block in it. */
  private replyHeader(): TranscriptEvent[] {
    if (this.turn === 0 || this.replyTurn === this.turn) return [];
    this.replyTurn = this.turn;
    return [this.addBlock({ type: "reply", agent: this.agent, turn: this.turn })];
  }

  /** Tool calls of `turn` still pending or running are marked `how`; their blocks redraw. */
  private settleToolCalls(turn: number | undefined, how: "cancelled" | "unfinished"): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (const call of this.toolCalls.values()) {
      const open = isOpen(call.status);
      if ((turn === undefined || call.turn === turn) && open && !call.background) {
        call.status = how;
        events.push({ type: "update", block: this.byId.get(call.blockId)! });
      }
    }
    return events;
  }

  /** ACP cancel: this turn's unfinished tool calls are cancelled at once; the turn waits for its end. */
  beginCancel(): TranscriptEvent[] {
    if (this.turnState === "idle") return [];
    this.turnState = "cancelling";
    return [...this.settleToolCalls(this.turn, "cancelled"), { type: "meta" }];
  }

  permissionAsked(): TranscriptEvent[] {
    this.pendingPermissions++;
    if (this.turnState === "idle") return this.noteLateWork();
    if (this.turnState === "cancelling") return [];
    this.turnState = "waiting_permission";
    return [{ type: "meta" }];
  }

  permissionAnswered(): TranscriptEvent[] {
    this.pendingPermissions = Math.max(0, this.pendingPermissions - 1);
    if (this.turnState !== "waiting_permission" || this.pendingPermissions > 0) return [];
    this.turnState = "streaming";
    return [{ type: "meta" }];
  }

  /** Work arrived after the turn's end (not a replay: a turn of this chat has ended). */
  private noteLateWork(): TranscriptEvent[] {
    if (this.turnState !== "idle" || this.turnsEnded === 0 || this.lateWork || this.stateReported) return [];
    this.lateWork = true;
    return [{ type: "meta" }];
  }

  /** ACP v2's state_update without a prompt: `running` shows the chat working until `idle`. */
  agentWorking(on: boolean): TranscriptEvent[] {
    this.agentRuns = on && this.turnState === "idle";
    if (this.turnState !== "idle" || this.lateWork === on) return [];
    this.lateWork = on;
    return [...(on ? [] : this.settleToolCalls(undefined, "unfinished")), { type: "meta" }];
  }

  /** Late work is over when no tool call is open, no question waits and the agent did not say it runs, or when cancelled. */
  settleLateWork(cancel = false): TranscriptEvent[] {
    const open = [...this.toolCalls.values()].some((c) => isOpen(c.status));
    if (!this.lateWork || (!cancel && (open || this.pendingPermissions > 0 || this.agentRuns))) return [];
    this.lateWork = false;
    this.agentRuns = false;
    return [...(cancel ? this.settleToolCalls(undefined, "cancelled") : []), { type: "meta" }];
  }

  /** A block of the files a step changed (src/checkpoints/turns.ts). */
  changes(step: number, title: string, files: FileChange[], rewindTurn?: number): TranscriptEvent[] {
    return [this.addBlock({ type: "changes", step, title, files, rewindTurn, turn: this.turn })];
  }

  note(text: string, level: "info" | "warn" | "error" = "info"): TranscriptEvent[] {
    return [this.addBlock({ type: "note", text, level, turn: this.turn })];
  }

  // ---------- session/update ----------

  apply(update: SessionUpdate): TranscriptEvent[] {
    const events: TranscriptEvent[] = LATE_WORK.has(update.sessionUpdate) ? this.noteLateWork() : [];
    if (this.turnState === "prompting") {
      this.turnState = "streaming";
      events.push({ type: "meta" });
    }
    if (update.sessionUpdate === "unknown") {
      this.unknownKinds.set(update.originalKind, (this.unknownKinds.get(update.originalKind) ?? 0) + 1);
      events.push(...this.note(update.reason, "warn"));
      return events;
    }
    events.push(...(isOptIn(update) ? this.applyOptIn(update) : this.applyKnown(update)));
    return events;
  }

  /** The variants the client opted in to (`clientCapabilities.session`). */
  private applyOptIn(u: OptInSessionUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "notice":
        // Live information, not history: a note where it arrived (the host also notifies).
        return this.note(u.description ? `${u.title}\n${u.description}` : u.title, noticeLevel(u.severity));
      case "compaction_update": {
        const { block, events } = this.compaction(u.compactionId);
        block.status = u.status;
        if (u.summary !== undefined) block.summary = (u.summary ?? []).map(contentText).join("");
        if (u.error !== undefined) block.error = u.error ?? undefined;
        return events.length > 0 ? events : [{ type: "update", block }];
      }
      case "compaction_summary_chunk": {
        const { block, events } = this.compaction(u.compactionId);
        block.summary += contentText(u.content);
        return events.length > 0 ? events : [{ type: "update", block }];
      }
    }
  }

  /** The compaction with this id; a first-seen id makes one (in progress) at the end of the transcript. */
  compaction(compactionId: string): { block: Extract<Block, { type: "compaction" }>; events: TranscriptEvent[] } {
    const id = `compaction:${compactionId}`;
    const found = this.byId.get(id);
    if (found && found.type === "compaction") return { block: found, events: [] };
    const ev = this.addBlock(
      { type: "compaction", compactionId, status: "in_progress", summary: "", turn: this.turn },
      id,
    );
    return { block: (ev as { block: Extract<Block, { type: "compaction" }> }).block, events: [ev] };
  }

  private applyKnown(u: KnownSessionUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "user_message_chunk":
        return this.chunk("user", u.content, u._meta);
      case "agent_message_chunk":
        return this.chunk("agent", u.content, u._meta);
      case "agent_thought_chunk":
        return this.chunk("thought", u.content, u._meta);
      case "tool_call":
        return this.upsertToolCall(u, true);
      case "tool_call_update":
        return this.upsertToolCall(u, false);
      case "plan":
        return this.replacePlan(u.entries, planId(u._meta));
      case "available_commands_update":
        this.commands = u.availableCommands;
        return [{ type: "meta" }];
      case "current_mode_update":
        if (this.modes) this.modes = { ...this.modes, currentModeId: u.currentModeId };
        else this.modes = { currentModeId: u.currentModeId, availableModes: [] };
        return [{ type: "meta" }];
      case "config_option_update":
        this.configOptions = u.configOptions;
        return [{ type: "meta" }];
      case "session_info_update":
        if (u.title !== undefined) this.title = u.title ?? undefined;
        if (u.updatedAt !== undefined) this.updatedAt = u.updatedAt ?? undefined;
        return [{ type: "meta" }];
      case "usage_update":
        this.usage = { used: u.used, size: u.size, cost: u.cost };
        return [{ type: "meta" }];
    }
  }

  /** Consecutive chunks of the same kind merge into one block; anything else starts a new one. */
  private chunk(kind: "user" | "agent" | "thought", content: ContentBlock, meta?: unknown): TranscriptEvent[] {
    if (content.type === "image" || content.type === "audio") return this.mediaChunk(kind, content);
    const text = contentText(content);
    const last = this.blocks[this.blocks.length - 1];
    const routed = this.messages.route(kind, meta, text, last); // a known message's block (v2)
    if (routed) return routed;
    if (last && last.type === kind && this.messages.continues(kind, meta, last)) {
      last.text += text;
      // `+=` builds a rope (V8 cons strings, ~60 bytes a piece: 20,000 chunks hold ~1 MB for 60 KB
      // of text): flatten it at an interval that grows with it, so the rope stays under its size.
      if (++this.appendsSinceFlatten >= Math.max(256, last.text.length >> 6)) {
        this.appendsSinceFlatten = 0;
        flatten(last.text);
      }
      return [{ type: "append", id: last.id, text }];
    }
    const events: TranscriptEvent[] = [];
    // A replayed conversation (session/load) has no beginTurn: a user message opens the turn.
    if (
      kind === "user" &&
      this.turnState === "idle" &&
      !(last?.type === "media" && last.role === "user" && last.turn === this.turn)
    ) {
      events.push(...this.settleToolCalls(this.turn, "unfinished"));
      this.turn++;
      events.push(this.addBlock({ type: "turn", turn: this.turn }));
    }
    if (kind !== "user") events.push(...this.replyHeader());
    events.push(this.addBlock({ type: kind, text, turn: this.turn }));
    this.messages.remember(kind, meta, events[events.length - 1]!);
    return events;
  }

  /** An image or audio chunk: a block of its own (the text around it goes on in a new block). */
  private mediaChunk(kind: "user" | "agent" | "thought", media: MediaBlock): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    const last = this.blocks[this.blocks.length - 1];
    if (
      kind === "user" &&
      this.turnState === "idle" &&
      !(last && (last.type === "user" || (last.type === "media" && last.role === "user")) && last.turn === this.turn)
    ) {
      events.push(...this.settleToolCalls(this.turn, "unfinished"));
      this.turn++;
      events.push(this.addBlock({ type: "turn", turn: this.turn }));
    }
    if (kind !== "user") events.push(...this.replyHeader());
    events.push(this.addBlock({ type: "media", role: kind, media, turn: this.turn }));
    return events;
  }

  /** `tool_call` may arrive twice (upsert); `tool_call_update` replaces only the fields present. */
  private upsertToolCall(u: Record<string, unknown> & { toolCallId: string }, isCreate: boolean): TranscriptEvent[] {
    // An id reused in a later turn is a new tool call: the earlier turn's block stays as it was.
    // An update for an earlier turn's call the agent never ended (it goes on after a cancel) is drawn there.
    const earlier = isCreate ? undefined : this.toolCalls.get(u.toolCallId);
    let call = this.currentToolCall(u.toolCallId) ?? (earlier && !ENDED.has(earlier.status) ? earlier : undefined);
    const fresh = !call;
    if (!call) {
      call = {
        toolCallId: u.toolCallId,
        blockId: this.freeToolBlockId(u.toolCallId),
        title: "",
        kind: "other",
        status: "pending",
        content: [],
        locations: [],
        terminals: {},
        turn: this.turn,
      };
      this.toolCalls.set(u.toolCallId, call);
    }
    const set = <K extends keyof ToolCallState>(key: K, v: unknown) => {
      if (v !== undefined && v !== null) call![key] = v as ToolCallState[K];
    };
    set("title", u.title);
    set("kind", u.kind);
    set("status", u.status);
    set("content", u.content);
    set("locations", u.locations);
    if ("rawInput" in u && u.rawInput !== undefined) call.rawInput = u.rawInput;
    if ("rawOutput" in u && u.rawOutput !== undefined) call.rawOutput = u.rawOutput;
    const name = typeof u.name === "string" && u.name ? u.name : metaToolName(u._meta);
    if (name) call.toolName = name;
    applyTerminalMeta(call, u._meta);
    applyControls(call, u._meta);
    fillTerminalsFromRawOutput(call);
    if (fresh && !isCreate && !call.title) call.title = call.toolCallId;
    // A subagent's tool call is drawn inside its Task's block (which then redraws), not apart.
    const parent = fresh ? this.nestUnder(call, u._meta) : undefined;
    if (parent) return [{ type: "update", block: this.byId.get(parent.blockId)! }];
    if (fresh) return [...this.replyHeader(), this.addBlock({ type: "tool", call, turn: this.turn }, call.blockId)];
    return [{ type: "update", block: this.byId.get(call.blockId)! }];
  }

  // claude-agent-acp marks its subagents' tool calls with the Task's id: such a call joins the Task's
  // block (updates redraw it). Only a Task of this turn that is not itself nested, never the call itself.
  private nestUnder(call: ToolCallState, metaField: unknown): ToolCallState | undefined {
    const id = (metaField as { claudeCode?: { parentToolUseId?: unknown } } | undefined)?.claudeCode?.parentToolUseId;
    if (typeof id !== "string" || id === call.toolCallId) return undefined;
    const parent = this.currentToolCall(id);
    if (!parent || parent.parent !== undefined) return undefined;
    call.parent = id;
    call.blockId = parent.blockId;
    (parent.children ??= []).push(call);
    return parent;
  }

  /** The user rejected (or dismissed) the question about `toolCallId`: it reads as rejected, however it ends. */
  markRejected(toolCallId: string): TranscriptEvent[] {
    const call = this.currentToolCall(toolCallId);
    if (!call || call.rejected) return [];
    call.rejected = true;
    return [{ type: "update", block: this.byId.get(call.blockId)! }];
  }

  /** The tool call with this id in the current turn (an earlier turn's is another call). */
  currentToolCall(toolCallId: string): ToolCallState | undefined {
    const call = this.toolCalls.get(toolCallId);
    return call && call.turn === this.turn ? call : undefined;
  }

  private freeToolBlockId(toolCallId: string): string {
    const base = toolBlockId(toolCallId);
    if (!this.byId.has(base)) return base;
    for (let i = this.turn; ; i++) if (!this.byId.has(`${base}#${i}`)) return `${base}#${i}`;
  }

  /** The tool call a question is about: the request's own fields (often only the id) over what the agent
   *  announced for that id in this turn (title, kind, locations, raw input, content with its diffs). */
  permissionToolCall(tc: ToolCallUpdate): ToolCallUpdate {
    return mergeKnownToolCall(tc, this.currentToolCall(tc.toolCallId));
  }

  /** The terminals an agent ran itself and streamed in `_meta` (claude-agent-acp, codex-acp), in order. */
  metaTerminals(): MetaTerminal[] {
    return metaTerminalsOf(this.toolCalls.values());
  }

  /** Output of a client-side terminal shown in a tool call. */
  terminalOutput(terminalId: string, tail: string, exit?: string, failed?: boolean): TranscriptEvent[] {
    const changed = showClientTerminal(this.toolCalls.values(), terminalId, tail, exit, failed);
    return changed.map((call) => ({ type: "update", block: this.byId.get(call.blockId)! }));
  }

  /** The plan is replaced whole, drawn once per turn (per plan id, v2) and redrawn in place. */
  private replacePlan(entries: PlanEntry[], planId?: string): TranscriptEvent[] {
    this.plan = entries;
    const id = planId === undefined ? `plan:${this.turn}` : `plan:${this.turn}:${planId}`;
    const existing = this.byId.get(id);
    if (existing && existing.type === "plan") {
      existing.entries = entries;
      return [{ type: "update", block: existing }];
    }
    return [...this.replyHeader(), this.addBlock({ type: "plan", entries, turn: this.turn }, id)];
  }

  // ---------- session setup ----------

  applySetup(setup: {
    modes?: SessionModeState | null;
    configOptions?: SessionConfigOption[] | null;
    models?: LegacyModels | null;
  }): TranscriptEvent[] {
    if (setup.modes) this.modes = setup.modes;
    if (setup.configOptions) this.configOptions = setup.configOptions;
    if (setup.models) this.legacyModels = setup.models;
    return [{ type: "meta" }];
  }

  get currentModel(): string | undefined {
    const opt = this.configOptions.find((o) => o.category === "model");
    if (opt && opt.type === "select") return optionName(opt, opt.currentValue);
    if (this.legacyModels) {
      const m = this.legacyModels.availableModels.find((x) => x.modelId === this.legacyModels!.currentModelId);
      return m?.name ?? this.legacyModels.currentModelId;
    }
    return undefined;
  }

  get currentMode(): string | undefined {
    if (!this.modes) return undefined;
    return this.modes.availableModes.find((m) => m.id === this.modes!.currentModeId)?.name ?? this.modes.currentModeId;
  }

  /** The last turn's tokens (PromptResponse.usage, the usage feature), for the status. */
  setTurnUsage(usage: Record<string, number>): TranscriptEvent[] {
    this.turnUsage = usage;
    return [];
  }

  /** A config option set by the client, for an agent that answered without its options. */
  setConfigValue(configId: string, value: string | boolean): TranscriptEvent[] {
    this.configOptions = this.configOptions.map((o) =>
      o.id === configId ? ({ ...o, currentValue: value } as SessionConfigOption) : o,
    );
    return [{ type: "meta" }];
  }

  /** The model chosen with legacy `session/set_model`. */
  setLegacyModel(modelId: string): TranscriptEvent[] {
    if (this.legacyModels) this.legacyModels = { ...this.legacyModels, currentModelId: modelId };
    return [{ type: "meta" }];
  }

  /** The session's title, as the client renamed it. */
  setTitle(title: string): TranscriptEvent[] {
    this.title = title;
    return [{ type: "meta" }];
  }

  /** Turns go on from `turn`: a restarted agent's transcript continues the one above it. */
  continueTurnsFrom(turn: number): void {
    this.turn = turn;
  }

  /** A compaction's summary, redacted whole (a secret may arrive split across its chunks). */
  redactCompaction(compactionId: string, redact: (text: string) => string): TranscriptEvent[] {
    const { block } = this.compaction(compactionId);
    const safe = redact(block.summary);
    if (safe === block.summary) return [];
    block.summary = safe;
    return [{ type: "update", block }];
  }

  /** The current turn's text blocks, redacted (a safety net after the turn). */
  redactTurn(redact: (text: string) => string): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (let i = this.blocks.length - 1; i >= 0 && this.blocks[i]!.turn === this.turn; i--) {
      const b = this.blocks[i]!;
      if (b.type === "agent" || b.type === "thought" || b.type === "user") {
        const safe = redact(b.text);
        if (safe !== b.text) {
          b.text = safe;
          events.push({ type: "update", block: b });
        }
      }
    }
    return events;
  }

  /** A block by its id without the prefix (the feature modules, src/session/features/, find their blocks again). */
  blockById(id: string): Block | undefined {
    return this.byId.get(id);
  }

  /** A feature module's block placed at the end (after the reply's header, in a turn). */
  placeBlock(b: FeatureBlock): TranscriptEvent[] {
    return [...this.replyHeader(), this.addBlock(b as Omit<Block, "id">, b.id)];
  }

  private addBlock<B extends Omit<Block, "id">>(b: B, id?: string): TranscriptEvent {
    const key = id ?? `b${this.nextBlock++}`;
    const block = { ...b, id: this.idPrefix + key } as unknown as Block;
    this.blocks.push(block);
    this.byId.set(key, block);
    return { type: "add", block };
  }
}
