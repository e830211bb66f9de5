/** What an agent last knew of a file: a numbered read's lines are unnumbered only when a write asks. */
import { describe, expect, it } from "vitest";
import { unnumberedLines } from "../../src/nvim/buffer-reader.js";
import { AgentSeen } from "../../src/workspace/agent-seen.js";

describe("AgentSeen", () => {
  it("keeps a lazily made text, makes it once when asked, and forgets one too long", () => {
    const seen = new AgentSeen();
    let made = 0;
    const text = () => {
      made++;
      return { lines: ["a", "b"], eol: true };
    };
    seen.read("s", "/f", { modified: true, text, lines: 2 });
    expect(made).toBe(0);
    expect(seen.get("s", "/f")).toEqual({ lines: ["a", "b"], eol: true });
    expect(seen.get("s", "/f")).toEqual({ lines: ["a", "b"], eol: true });
    expect(made).toBe(1);
    seen.read("s", "/g", { modified: true, text, lines: 60_000 });
    expect(seen.get("s", "/g")).toBeNull();
    seen.read("s", "/f", { modified: false, text: null });
    expect(seen.get("s", "/f")).toBeUndefined();
  });

  it("unnumbers what Neovim numbered (tabs and empty lines kept)", () => {
    expect(unnumberedLines("     1\ta\tb\n     2\t\n1000000\t\tx")).toEqual(["a\tb", "", "\tx"]);
  });
});
