/**
 * The agent's requests to the client (the SDK's `Client` side): files read and written inside
 * the session's boundary, terminals, permission questions (queued, merged with the tool call
 * they are about, answered `cancelled` when the turn is), forms, and sign-in news.
 */
import type { AgentRequestHandlers } from "../../client/acp-client.js";
import { ErrorCodes, RpcError } from "../../protocol/errors.js";
import type { HandlerContext } from "../../protocol/jsonrpc.js";
import type { PermissionOutcome, RequestPermissionRequest, SessionUpdate } from "../../protocol/schema.js";
import type { TerminalManager } from "../../terminals/terminal-manager.js";
import { applyEdit } from "../../editor-tools/file-tools.js";
import { abortable, linkedController } from "../abort.js";
import { editorWrite } from "../editor-file-calls.js";
import { PermissionQueue } from "../permission/queue.js";
import type { SessionFeatures } from "../features/index.js";
import type { ToolCallFollowUp } from "./after-tool-call.js";
import type { ChatCore } from "./context.js";
import type { UpdateRouter } from "./updates.js";

/** What the handlers need of the rest of the chat. */
export interface RequestNeeds {
  sessionId(): string | undefined;
  /** Aborted when the running turn is cancelled or ends. */
  turnSignal(): AbortSignal | undefined;
  /** The agent hears this with the next prompt. */
  tellAgent(note: string): void;
  terminals: TerminalManager;
  features: SessionFeatures;
  updates: UpdateRouter;
  followUp: ToolCallFollowUp;
}

export class AgentRequests {
  private readonly permissions: PermissionQueue;
  private readonly permissionAborts = new Set<AbortController>();

  constructor(
    private readonly core: ChatCore,
    private readonly needs: RequestNeeds,
  ) {
    this.permissions = new PermissionQueue({
      port: core.opts.port,
      redactor: core.redactor,
      rules: core.opts.permissionRules,
      notice: (t) => core.notice(t),
    });
  }

  /** Open permission questions are answered `cancelled` (the turn was cancelled, the agent is gone). */
  abortPermissions(reason: string): void {
    for (const c of this.permissionAborts) c.abort(new Error(reason));
  }

  handlers(): AgentRequestHandlers {
    const { core, needs } = this;
    const { opts, boundary, trace } = core;
    return {
      sessionUpdate: (sessionId, update) => needs.updates.onUpdate(sessionId, update),
      requestPermission: async (req, ctx) => this.askPermission(await this.withEditorDiff(req), ctx),
      readTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "read");
        needs.followUp.readByClient(path);
        // Only the text goes to the agent (`unsaved` is for the editor's own read_file).
        const { content } = await opts.port.readTextFile({ ...req, path }, this.linked(ctx), { agent: true });
        return { content };
      },
      writeTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "write");
        const result = await this.write(path, req.content, this.linked(ctx));
        if (!result) return {};
        // What was written (a review may have accepted part of it): the agent should know.
        const meta = { _meta: { "acp-chat.nvim/write": result } };
        if (result.written !== "buffer" || result.saved) return meta;
        return { message: result.message, ...meta };
      },
      createTerminal: async (req) => {
        const cwd = this.inside(req.cwd ?? boundary.cwd, "terminal cwd");
        const env: Record<string, string> = {};
        for (const e of req.env ?? []) env[e.name] = e.value;
        const t = needs.terminals.create({
          command: req.command,
          args: req.args ?? [],
          env,
          cwd,
          outputByteLimit: req.outputByteLimit ?? undefined,
        });
        trace.note("terminal", `started ${t.id}: ${req.command} ${(req.args ?? []).join(" ")}`);
        return { terminalId: t.id };
      },
      terminalOutput: async (req) => {
        const t = needs.terminals.get(req.terminalId);
        return { output: t.output(), truncated: t.truncated, exitStatus: t.exitStatus ?? null };
      },
      waitForTerminalExit: async (req, ctx) => {
        const t = needs.terminals.get(req.terminalId);
        return abortable(t.exited, ctx.signal);
      },
      killTerminal: async (req) => {
        await needs.terminals.get(req.terminalId).kill();
        return {};
      },
      releaseTerminal: async (req) => {
        await needs.terminals.release(req.terminalId);
        return {};
      },
      elicit: opts.port.elicit ? (req, ctx) => opts.port.elicit!(req, this.linked(ctx)) : undefined,
      // The feature modules' (AcpClient registers these only for the modules that are on).
      featureUpdate: (sessionId, update) => needs.updates.onFeatureUpdate(sessionId, update),
      authStatus: (s) => {
        // Only the state is acted on; unknown states read as unknown (the schema says so).
        const words: Record<string, string> = {
          authenticated: "is signed in",
          unauthenticated: "needs you to sign in again",
          not_required: "needs no sign-in",
        };
        trace.note("auth", `auth/status_update: ${s.state}`);
        core.notice(
          `${opts.agentName} ${words[s.state] ?? "cannot tell whether it is signed in"} (auth/status_update).`,
          s.state === "unauthenticated" ? "warn" : "info",
        );
      },
      mcpMessage: async (req) => {
        // This client declares no MCP server with the `acp` transport, so none can be addressed.
        throw new RpcError(
          ErrorCodes.ResourceNotFound,
          `Resource not found: no MCP server "${req.serverId}" (acp-chat.nvim declares no MCP servers with the acp transport)`,
        );
      },
    };
  }

  /**
   * fs/write_text_file's write, for the request and for the editor's write_file and edit_file
   * tools alike: a change that waits unsaved in its buffer is said to the user and the agent.
   */
  private async write(path: string, content: string, signal: AbortSignal) {
    const { core, needs } = this;
    const result = await core.opts.port.writeTextFile({ sessionId: needs.sessionId() ?? "", path, content }, signal);
    if (result?.written !== "buffer" || result.saved) return result;
    // Not on disk: the agent's next command would run on the old file. Said in words
    // (agents read a result's text, not its _meta), and in the transcript.
    core.notice(
      `The change to ${path} waits in its buffer, unsaved: commands see the old file until it is saved (:w).`,
      "warn",
    );
    // And again with the next prompt (the agent may not read a write's result text).
    needs.tellAgent(
      `your change to ${path} is in the editor's buffer but was not saved to disk when you wrote it; commands you ran since saw the old file unless the user saved it`,
    );
    return result;
  }

  /**
   * The editor's read_file tool: fs/read_text_file's read (the boundary, the buffer's unsaved
   * edits, the limits), and whether the text came from a buffer with unsaved edits.
   */
  async toolRead(
    path: string,
    line: number | undefined,
    limit: number | undefined,
    signal: AbortSignal,
    numbered = false,
  ): Promise<{ content: string; unsaved: boolean; path: string; numbered?: boolean }> {
    const { opts } = this.core;
    const real = this.inside(path, "read");
    this.needs.followUp.readByClient(real);
    const controller = linkedController(signal, this.needs.turnSignal());
    const r = await opts.port.readTextFile(
      { sessionId: this.needs.sessionId() ?? "", path: real, line, limit },
      controller.signal,
      { agent: true, numbered },
    );
    // Told by the read itself when the port can (one request less to the editor per read).
    const unsaved = r.unsaved ?? ((await opts.port.unsavedBuffers?.([real])) ?? []).length > 0;
    return { content: r.content, unsaved, path: real, numbered: r.numbered };
  }

  /** The editor's write_file and edit_file tools: fs/write_text_file's path; what was written, in words. */
  async toolWrite(path: string, content: string, signal: AbortSignal): Promise<string> {
    const real = this.inside(path, "write");
    const result = await this.write(real, content, linkedController(signal, this.needs.turnSignal()).signal);
    return result?.message ?? `wrote ${real}`;
  }

  private inside(path: string, operation: string): string {
    try {
      return this.core.boundary.check(path, operation);
    } catch (e) {
      this.core.notice(
        `Denied: the agent asked for ${operation} of ${path}, outside ${this.core.boundary.cwd}.`,
        "warn",
      );
      throw e;
    }
  }

  /**
   * A question about the editor's own write_file or edit_file carries no diff: it gets the one
   * the call will write (the file as the editor sees it, changed), so the user sees and reviews
   * it as an agent's own edit, and the write that follows is the one they allowed.
   */
  private async withEditorDiff(req: RequestPermissionRequest): Promise<RequestPermissionRequest> {
    const known = this.core.state.permissionToolCall(req.toolCall);
    if ((known.content ?? []).some((c) => c.type === "diff")) return req;
    const call = editorWrite(known);
    if (!call) return req;
    let path: string;
    try {
      path = this.core.boundary.check(call.path, "write");
    } catch {
      return req; // refused when the write comes
    }
    // The file as the editor sees it (its buffer, with the user's unsaved edits): the call's
    // old side, so that the question and its review show only what the call changes. Left
    // without one, the review would take the disk for it and show the user's unsaved lines as
    // the agent's, to be rejected with them.
    let oldText: string | null = null;
    try {
      oldText = (
        await this.core.opts.port.readTextFile({ sessionId: req.sessionId, path }, new AbortController().signal)
      ).content;
    } catch {
      if (call.tool === "edit_file") return req; // the edit fails when it runs, and says why
    }
    let newText: string;
    if (call.tool === "write_file") newText = call.content;
    else {
      try {
        newText = applyEdit(path, oldText ?? "", call.oldString, call.newString, call.replaceAll);
      } catch {
        return req; // the edit fails when it runs, and says why
      }
    }
    const diff = { type: "diff" as const, path, oldText, newText };
    return { ...req, toolCall: { ...req.toolCall, content: [...(known.content ?? []), diff] } };
  }

  /** Queued behind earlier questions; a cancelled turn (or a withdrawn request) answers it `cancelled`. */
  private askPermission(req: RequestPermissionRequest, ctx: HandlerContext): Promise<{ outcome: PermissionOutcome }> {
    const { core, needs } = this;
    const controller = this.linkedController(ctx);
    if (core.state.turnState === "cancelling") controller.abort();
    this.permissionAborts.add(controller);
    // The request's tool call often carries only its id: merge it with the one the agent
    // announced in this turn (title, kind, locations, raw input, diff), so the question says
    // what it is about and remembered answers are keyed on what is approved.
    // A subagent's question is about a tool call of its own session.
    const child = req.sessionId !== needs.sessionId() ? needs.features.child(req.sessionId)?.state : undefined;
    const state = child ?? core.state;
    const merged: RequestPermissionRequest = { ...req, toolCall: state.permissionToolCall(req.toolCall) };
    // Show the tool call the question is about, even if the agent never sent it as an update.
    if (!state.currentToolCall(req.toolCall.toolCallId)) {
      const shown = core.redactor.value({
        ...merged.toolCall,
        sessionUpdate: "tool_call",
        title: merged.toolCall.title ?? "tool call",
      } as SessionUpdate);
      core.emit(child ? (needs.features.route(req.sessionId, shown) ?? []) : core.state.apply(shown));
    }
    core.emit(core.state.permissionAsked());
    return this.permissions
      .ask(merged, controller.signal)
      .then((answer) => {
        // Rejected or dismissed by the user (not by a cancelled turn, which marks it cancelled).
        const o = answer.outcome;
        const kind = o.outcome === "selected" ? req.options.find((x) => x.optionId === o.optionId)?.kind : undefined;
        if (
          !child &&
          ((o.outcome === "cancelled" && !controller.signal.aborted) ||
            kind === "reject_once" ||
            kind === "reject_always")
        )
          core.emit(core.state.markRejected(req.toolCall.toolCallId));
        return answer;
      })
      .finally(() => {
        this.permissionAborts.delete(controller);
        core.emit(core.state.permissionAnswered());
      });
  }

  /** Fires when the agent cancels the request, the turn is cancelled, or the connection closes. */
  private linkedController(ctx: HandlerContext): AbortController {
    return linkedController(ctx.signal, this.needs.turnSignal());
  }

  private linked(ctx: HandlerContext): AbortSignal {
    return this.linkedController(ctx).signal;
  }
}
