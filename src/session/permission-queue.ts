/**
 * session/request_permission, one question at a time in the order they came. Client-side rules
 * answer first; otherwise the user is asked through the editor port (shown without secrets).
 * An aborted question (turn cancelled, request withdrawn, connection gone) answers `cancelled`.
 */
import type { EditorPort } from "../client/editor-port.js";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import type { PermissionOutcome, RequestPermissionRequest } from "../protocol/schema.js";
import type { Redactor } from "../trace/redact.js";
import { abortable } from "./abort.js";
import { optionFor, type PermissionRules } from "./permission-rules.js";

export interface PermissionQueueDeps {
  port: EditorPort;
  redactor: Redactor;
  rules?: PermissionRules;
  notice(text: string): void;
}

export class PermissionQueue {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PermissionQueueDeps) {}

  /** Queue a question; `signal` cancels it (at once if it is still waiting its turn). */
  ask(req: RequestPermissionRequest, signal: AbortSignal): Promise<{ outcome: PermissionOutcome }> {
    const run = () => this.decide(req, signal);
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  private async decide(req: RequestPermissionRequest, signal: AbortSignal): Promise<{ outcome: PermissionOutcome }> {
    if (signal.aborted) return { outcome: { outcome: "cancelled" } };
    const { port, redactor, rules } = this.deps;
    const decision = rules?.decide(req);
    const auto = decision && optionFor(req.options, decision);
    if (decision && auto) {
      const title = req.toolCall.title ?? req.toolCall.toolCallId;
      this.deps.notice(`${decision.action === "allow" ? "Allowed" : "Rejected"} "${title}" without asking (${decision.why}).`);
      return { outcome: { outcome: "selected", optionId: auto.optionId } };
    }
    // What the user is shown holds no secret; the answer refers to the agent's own option ids.
    const shown = redactor.active ? { ...redactor.value(req), options: req.options } : req;
    const answer = await abortable(port.requestPermission(shown, signal), signal).catch((e) => {
      if (signal.aborted) return { outcome: "cancelled" } as PermissionOutcome & { remember?: undefined };
      throw e;
    });
    if (answer.outcome !== "selected") return { outcome: { outcome: "cancelled" } };
    const chosen = req.options.find((o) => o.optionId === answer.optionId);
    if (!chosen) throw new RpcError(ErrorCodes.InternalError, `the editor chose an option the agent did not offer: ${answer.optionId}`);
    if (answer.remember && rules && (chosen.kind === "allow_always" || chosen.kind === "reject_always")) {
      rules.remember(req, chosen.kind === "allow_always" ? "allow" : "reject", answer.remember);
    }
    return { outcome: { outcome: "selected", optionId: chosen.optionId } };
  }
}
