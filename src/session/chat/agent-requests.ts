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
import { abortable, linkedController } from "../abort.js";
import { PermissionQueue } from "../permission-queue.js";
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
      requestPermission: (req, ctx) => this.askPermission(req, ctx),
      readTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "read");
        needs.followUp.readByClient(path);
        return opts.port.readTextFile({ ...req, path }, this.linked(ctx));
      },
      writeTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "write");
        const result = await opts.port.writeTextFile({ ...req, path }, this.linked(ctx));
        if (!result) return {};
        // What was written (a review may have accepted part of it): the agent should know.
        const meta = { _meta: { "acp-chat.nvim/write": result } };
        if (result.written !== "buffer" || result.saved) return meta;
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
