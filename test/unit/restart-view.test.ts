/**
 * The view of a chat that starts again (src/nvim/restart-policy.ts's RestartView): a continued
 * session's ops are held until it started, then drawn as the batches they came in (so that no
 * one message of a long replay holds the editor), after a reset when a load replayed them.
 */
import { describe, expect, it } from "vitest";
import { RestartView } from "../../src/nvim/restart-policy.js";
import type { RenderOp } from "../../src/wire/index.js";

const append = (text: string): RenderOp => ({ op: "append", id: "b1", text });
const meta = { op: "meta", status: {} } as unknown as RenderOp;

describe("RestartView", () => {
  it("holds a continued session's batches, status changes excepted, and draws them one message each", () => {
    const drawn: RenderOp[][] = [];
    const view = new RestartView("continue", (ops) => drawn.push(ops));
    view.send([append("a"), meta]);
    view.send([meta]);
    view.send([append("b"), append("c")]);
    expect(drawn).toEqual([[meta], [meta]]);
    expect(view.holding).toBe(true);
    view.started("load");
    expect(drawn.slice(2)).toEqual([[{ op: "reset" }], [append("a")], [append("b"), append("c")]]);
    expect(view.holding).toBe(false);
    view.send([append("d")]);
    expect(drawn.at(-1)).toEqual([append("d")]);
  });

  it("a resume draws what was held without a reset; a failed start drops it", () => {
    const drawn: RenderOp[][] = [];
    const view = new RestartView("continue", (ops) => drawn.push(ops));
    view.send([append("a")]);
    view.started("resume");
    expect(drawn).toEqual([[append("a")]]);
    const failing: RenderOp[][] = [];
    const other = new RestartView("continue", (ops) => failing.push(ops));
    other.send([append("x")]);
    expect(other.failed()).toBe(true);
    expect(failing).toEqual([]);
  });

  it("a new session's ops pass straight through", () => {
    const drawn: RenderOp[][] = [];
    const view = new RestartView("new", (ops) => drawn.push(ops));
    view.send([append("a")]);
    expect(drawn).toEqual([[append("a")]]);
    expect(view.failed()).toBe(false);
  });
});
