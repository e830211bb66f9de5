/**
 * session/request_permission, one question at a time in the order they came. Client-side rules
 * answer first; otherwise the user is asked through the editor port (shown without secrets).
 * An aborted question (turn cancelled, request withdrawn, connection gone) answers `cancelled`.
 * A request whose options repeat an id is refused (`-32602`): an answer names an option by its
 * id only. The user's answer is tied to the option's position, and what is remembered is the
 * kind of that option.
 */
import type { EditorPort, PermissionAnswer } from "../../client/editor-port.js";
import { ErrorCodes, RpcError } from "../../protocol/errors.js";
import type { PermissionOutcome, RequestPermissionRequest } from "../../protocol/schema.js";
import type { Redactor } from "../../trace/redact.js";
import { abortable } from "../abort.js";
import { optionFor, type PermissionRules } from "./rules.js";
import { oneLine } from "../one-line.js";

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
    // The answer carries only an option id: two options with one id make any answer ambiguous
    // (a "reject always" could be read as "allow always"), so such a question is never asked.
    const dup = repeatedOption(req);
    if (dup) {
      this.deps.notice(
        `Refused a permission question from the agent: two of its options have the same id (${oneLine(redactor.text(dup), 80)}), so no answer could say which one was meant.`,
      );
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `Invalid params for session/request_permission: options: the optionId "${dup}" is used by more than one option`,
      );
    }
    // Rules see the request without secrets: remembered keys are stored and shown.
    const safe = redactor.value(req);
    const decision = rules?.decide(safe);
    const auto = decision && optionFor(req.options, decision);
    if (decision && auto) {
      const title = oneLine(safe.toolCall.title ?? safe.toolCall.toolCallId, 120);
      this.deps.notice(
        `${decision.action === "allow" ? "Allowed" : "Rejected"} "${title}" without asking (${oneLine(decision.why, 300)}).`,
      );
      return { outcome: { outcome: "selected", optionId: auto.optionId } };
    }
    // What the user is shown holds no secret and draws every field on one line; the answer
    // names the option by its position (`index`), with that option's own id.
    const answer = await abortable(port.requestPermission(shown(safe, req), signal), signal).catch((e) => {
      if (signal.aborted) return { outcome: "cancelled" } as PermissionAnswer;
      throw e;
    });
    if (answer.outcome !== "selected") return { outcome: { outcome: "cancelled" } };
    // The option the user chose, by its position; what is remembered and answered is that one.
    const chosen =
      answer.index !== undefined ? req.options[answer.index] : req.options.find((o) => o.optionId === answer.optionId);
    if (!chosen || chosen.optionId !== answer.optionId)
      throw new RpcError(
        ErrorCodes.InternalError,
        `the editor chose an option the agent did not offer: ${answer.optionId}`,
      );
    if (answer.remember && rules && (chosen.kind === "allow_always" || chosen.kind === "reject_always")) {
      const rule = rules.remember(safe, chosen.kind === "allow_always" ? "allow" : "reject", answer.remember);
      if (!rule)
        this.deps.notice(
          `Not remembered: "${oneLine(safe.toolCall.title ?? safe.toolCall.toolCallId, 120)}" reaches outside the working directory, so it is asked every time.`,
        );
    }
    // The question's block leaves the transcript once answered: what was chosen stays, in a line.
    const verb = chosen.kind.startsWith("allow")
      ? "Allowed"
      : chosen.kind.startsWith("reject")
        ? "Rejected"
        : "Answered";
    this.deps.notice(
      `${verb} "${oneLine(safe.toolCall.title ?? safe.toolCall.toolCallId, 120)}": you chose "${oneLine(safe.options[answer.index ?? req.options.indexOf(chosen)]?.name ?? chosen.name, 80)}".`,
    );
    return { outcome: { outcome: "selected", optionId: chosen.optionId } };
  }
}

/** An option id used by more than one of the request's options, if any. */
function repeatedOption(req: RequestPermissionRequest): string | undefined {
  const seen = new Set<string>();
  for (const o of req.options) {
    if (seen.has(o.optionId)) return o.optionId;
    seen.add(o.optionId);
  }
  return undefined;
}

/** The question as the user sees it: title, kind, paths and option names on one line each. */
function shown(safe: RequestPermissionRequest, req: RequestPermissionRequest): RequestPermissionRequest {
  const tc = safe.toolCall;
  return {
    ...safe,
    toolCall: {
      ...tc,
      title: oneLine(tc.title ?? tc.toolCallId, 200),
      kind: tc.kind == null ? tc.kind : oneLine(tc.kind, 40),
      locations: tc.locations?.map((l) => ({ ...l, path: oneLine(l.path, 300) })),
    },
    options: req.options.map((o, i) => ({ ...o, name: oneLine(safe.options[i]?.name ?? o.name, 80) })),
  };
}
