/**
 * Where a review starts (a turn, the step after the approved baseline, else the first) and how
 * its range is named: decided from the chat's steps alone.
 */
import { describe, expect, it } from "vitest";
import { rangeLabel, rangeStart } from "../../src/checkpoints/review-range.js";
import type { ChangeStep, TurnCheckpoints } from "../../src/checkpoints/turns.js";

const step = (id: number, kind: ChangeStep["kind"], turn?: number, ended = true): ChangeStep => ({
  id,
  kind,
  turn,
  label: kind === "turn" ? `turn ${turn}` : `take-back in a.txt`,
  start: Promise.resolve(undefined),
  end: ended ? ({ n: id } as unknown as ChangeStep["end"]) : undefined,
  changes: [],
});

/** The parts of TurnCheckpoints a review's start reads. */
function chat(steps: ChangeStep[], baseline?: number): TurnCheckpoints {
  return {
    steps,
    baseline,
    stepById: (id: number) => steps.find((s) => s.id === id),
    turnStep: (turn?: number) => {
      const turns = steps.filter((s) => s.kind === "turn" && s.end);
      return turn === undefined ? turns.at(-1) : turns.find((s) => s.turn === turn);
    },
  } as unknown as TurnCheckpoints;
}

describe("rangeStart", () => {
  const steps = [step(1, "turn", 1), step(2, "takeback"), step(3, "turn", 2), step(4, "turn", 3, false)];

  it("starts at turn N when asked, whatever the baseline", () => {
    expect(rangeStart(chat(steps, 3), 1)).toBe(steps[0]);
    expect(rangeStart(chat(steps), 2)).toBe(steps[2]);
  });

  it("says which turns there are when turn N is not one", () => {
    expect(rangeStart(chat(steps), 7)).toEqual({ none: "there is no turn 7 in this chat (turns: 1, 2)" });
  });

  it("starts after the approved baseline, else at the first step", () => {
    expect(rangeStart(chat(steps), undefined)).toBe(steps[0]);
    expect(rangeStart(chat(steps, 1), undefined)).toBe(steps[1]);
    // A step not ended yet (a turn running) is not reviewed.
    expect(rangeStart(chat(steps, 3), undefined)).toEqual({
      none: "nothing changed since you approved (after turn 2)",
    });
  });

  it("has nothing before any step ended", () => {
    expect(rangeStart(chat([step(1, "turn", 1, false)]), undefined)).toEqual({ none: "no turn has been recorded yet" });
  });
});

describe("rangeLabel", () => {
  it("names the turns of a range, or its steps without turns", () => {
    expect(rangeLabel([step(1, "turn", 1)])).toBe("turn 1");
    expect(rangeLabel([step(1, "turn", 1), step(2, "takeback"), step(3, "turn", 2)])).toBe("turns 1-2");
    expect(rangeLabel([step(2, "takeback")])).toBe("take-back in a.txt");
    expect(rangeLabel([step(2, "takeback"), step(5, "takeback")])).toBe("2 steps");
  });
});
