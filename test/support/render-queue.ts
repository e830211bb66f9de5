/**
 * A RenderQueue over a SessionState, as a chat wires it, sending into `sent`. Its clock is
 * `tick()`'s, or the (fake) timers' Date.now() with `fakeTimers`, which also run the frame's timer.
 */
import { vi } from "vitest";
import { parseSessionUpdate } from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { RenderQueue } from "../../src/view/render-queue.js";
import { statusView } from "../../src/view/view-model.js";
import type { RenderOp } from "../../src/wire/index.js";

export function renderQueue(frameMs = 16, clock: "tick" | "fakeTimers" = "tick") {
  const sent: RenderOp[][] = [];
  const state = new SessionState();
  let now = 0;
  const q = new RenderQueue({
    frameMs,
    send: (ops) => sent.push(ops),
    status: () => statusView({ agent: "a", lifecycle: "ready", sessionId: "s", cwd: "/", queued: [] }, state),
    now: clock === "tick" ? () => now : () => Date.now(),
  });
  const push = (u: Record<string, unknown>) => q.push(state.apply(parseSessionUpdate(u)));
  const text = (t: string) => push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } });
  return { q, state, sent, push, text, tick: (ms: number) => (now += ms) };
}

/** Run `fn` with fake timers (setTimeout, setImmediate, Date), real ones again after. */
export function withFakeTimers(fn: () => void): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "Date"] });
  try {
    fn();
  } finally {
    vi.useRealTimers();
  }
}
