/**
 * One piece of the agent's work, apart from the turn (ACP v2): `gC` on a tool call cancels
 * that call (`tool_call/cancel`) or the command it left running (`terminal/cancel`), only when
 * the agent advertises it; and the work it lists as running in the background, which the
 * chat's status counts and the blocks mark.
 */
import { errorMessage } from "../../protocol/errors.js";
import type { BackgroundWork } from "../../protocol/v2/updates.js";
import type { AcpClient } from "../../client/acp-client.js";
import type { ToolCallState } from "../blocks.js";
import { cancelTarget, markBackground } from "../tool-controls.js";
import type { ChatCore } from "./context.js";

export class WorkControls {
  /** How many pieces of work the agent runs in the background (undefined: it does not report it). */
  background: number | undefined;

  constructor(
    private readonly core: ChatCore,
    private readonly ready: () => { client: AcpClient; sessionId: string },
  ) {}

  /** A state update's complete background list. */
  setBackground(work: BackgroundWork[]): void {
    const changed = markBackground(this.core.state.toolCalls.values(), work);
    this.background = work.length;
    this.core.emit([...changed.flatMap((c) => this.redraw(c)), { type: "meta" }]);
  }

  /** Cancel the work of the tool call (or of its terminal); the block says so until the agent confirms. */
  async cancel(toolCallId: string): Promise<void> {
    const { client, sessionId } = this.ready();
    const call = this.core.state.toolCalls.get(toolCallId);
    if (!call) throw new Error(`no tool call ${toolCallId} in this chat`);
    const name = `"${call.title || call.toolCallId}"`;
    const target = cancelTarget(call);
    if (!target)
      throw new Error(
        `${this.core.opts.agentName} does not let the client cancel ${name} now (neither it nor a running terminal of it advertises capabilities.cancel)`,
      );
    const what = "toolCallId" in target ? `${name} (tool_call/cancel)` : `the terminal of ${name} (terminal/cancel)`;
    call.cancelling = target;
    this.core.emit(this.redraw(call));
    try {
      await client.cancelWork(sessionId, target);
      this.core.trace.note("lifecycle", `asked the agent to cancel ${what}`);
    } catch (e) {
      call.cancelling = undefined;
      this.core.emit(this.redraw(call));
      throw new Error(`${this.core.opts.agentName} did not cancel ${what}: ${errorMessage(e)}`);
    }
  }

  private redraw(call: ToolCallState) {
    const block = this.core.state.blockById(call.blockId);
    return block ? [{ type: "update" as const, block }] : [];
  }
}
