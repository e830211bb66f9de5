/**
 * A question's long texts cross to Lua in parts sent ahead of it (src/nvim/questions.ts): every
 * part bounded, in order, never splitting a surrogate pair, and joined they are the text.
 */
import { describe, expect, it } from "vitest";
import type { Bridge } from "../../src/nvim/bridge.js";
import { PART_CHARS, Questions } from "../../src/nvim/questions.js";
import type { ReviewQuestion } from "../../src/wire/index.js";

describe("Questions: long texts in parts", () => {
  it("sends each long field ahead in bounded parts and names it; short fields cross as they are", () => {
    const events: { event: string; payload: Record<string, unknown> }[] = [];
    const bridge = {
      emit: (event: string, payload: Record<string, unknown>) => events.push({ event, payload }),
    } as unknown as Bridge;
    const q = new Questions(bridge);
    // A surrogate pair right across the first part's end.
    const long = "a".repeat(PART_CHARS - 1) + "😀" + "é".repeat(PART_CHARS + 10);
    // Any long string field goes ahead, whatever its kind's shape (named as the wire names it).
    const question = { path: "/p", current: "short", oldText: long } as unknown as ReviewQuestion;
    void q.ask(1, "review", question, new AbortController().signal);
    const parts = events.filter((e) => e.event === "askPart");
    const ask = events.find((e) => e.event === "ask")!;
    expect(events.at(-1)).toBe(ask);
    expect(parts.length).toBe(3);
    for (const p of parts) {
      expect(p.payload.field).toBe("old_text");
      expect((p.payload.text as string).length).toBeLessThanOrEqual(PART_CHARS);
      expect(p.payload.key).toBe(ask.payload.key);
    }
    expect(parts.map((p) => p.payload.text).join("")).toBe(long);
    expect((parts[0]!.payload.text as string).endsWith("a")).toBe(true);
    expect(ask.payload.question).toEqual({ path: "/p", current: "short", oldText: "", parts: ["old_text"] });
  });
});
