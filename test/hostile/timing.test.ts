/** Timing: agents that never answer, never end, ignore cancel, or ask a thousand questions at once. */
import { describe, expect, it } from "vitest";
import { start, stillUsable } from "./harness.js";

describe("timing", () => {
  it("no answer to initialize: the chat fails with a clear message after the timeout", async () => {
    const h = await start({ noInitAnswer: true }, { timeouts: { initialize_ms: 400 } });
    await h.t.waitFor(async () => (await h.status()).state === "crashed", "failed");
    expect(await h.text()).toMatch(/initialize got no answer from the agent within 400 ms/);
  });

  it("a turn that never ends is cancelled; an agent that ignores the cancel has its turn ended by the client", async () => {
    const h = await start(
      { ignoreCancel: true, turns: [[{ text: "thinking forever" }, { hang: true }]] },
      { timeouts: { cancel_ms: 500 } },
    );
    await h.ready();
    await h.send("go");
    await h.t.waitFor(async () => (await h.status()).activity === "streaming", "streaming");
    await h.t.nvim.command("AcpChatCancel");
    await h.turns(1);
    expect(await h.lastStop()).toBe("cancelled");
    expect(await h.text()).toMatch(/did not end the turn within 0.5 s of the cancel; the turn is marked cancelled/);
  });

  it("1,000 permission requests at once: asked one at a time, and a cancel answers every one", async () => {
    const burst = {
      burst: {
        count: 1000,
        method: "session/request_permission",
        vary: true,
        params: { options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] },
      },
    };
    const h = await start({ turns: [[burst]] });
    await h.t.lua(`
      _G.asked, _G.open, _G.max_open = 0, 0, 0
      vim.ui.select = function(items, opts, cb)
        _G.asked = _G.asked + 1
        _G.open = _G.open + 1
        _G.max_open = math.max(_G.max_open, _G.open)
        if _G.asked <= 5 then vim.schedule(function() _G.open = _G.open - 1; cb(items[1]) end) end
      end
    `);
    await h.ready();
    await h.send("go");
    await h.t.waitFor(async () => (await h.t.lua<number>("return _G.asked")) === 6, "the sixth question");
    await h.t.nvim.command("AcpChatCancel");
    await h.turns(1);
    expect(await h.text()).toContain('burst: {"selected":5,"cancelled":995}');
    expect(await h.t.lua("return _G.asked")).toBe(6);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  // How responsive the editor stays under a flood is measured in bench/ (tests check correctness).
  it("a flood of 1,000 tool calls draws 1,000 blocks, each once, and the chat carries on", async () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({
      update: {
        sessionUpdate: "tool_call",
        toolCallId: `t${i}`,
        title: `Tool ${i}`,
        kind: "read",
        status: "completed",
      },
    }));
    const h = await start({ turns: [steps] });
    await h.ready();
    await h.send("go");
    await h.turns(1);
    const marks = await h.t.lua<number>(
      "return #vim.api.nvim_buf_get_extmarks(..., require('acpchat.chat.render').ns_blocks, 0, -1, {})",
      [h.buf],
    );
    expect(marks).toBe(1000 + 3); // the tool calls, the turn header, the prompt, the reply header
    const text = await h.text();
    expect(text.match(/^● done · read · Tool \d+$/gm)).toHaveLength(1000);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  it("hostile text for the redactor (400 KB of TOKEN, of -token, of API_KEY) does not stall the host", async () => {
    // Each was a backtracking catastrophe for one redaction pattern: "TOKEN".repeat(80000) in
    // one chunk stalled the host about 30 s, "-token" runs far longer. Linear now: the turn
    // ends in well under the bound, and the host answers while it runs.
    const hostile = [
      { text: "TOKEN", repeat: 80_000 },
      { text: "-token", repeat: 30_000 },
      { text: "API_KEY", repeat: 60_000 },
    ];
    const h = await start({ turns: [[...hostile, { text: " END" }]] });
    await h.ready();
    const t0 = Date.now();
    await h.send("go");
    await h.turns(1, 20_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await h.text()).endsWith(" END")).toBe(true);
    // The host answers at once afterwards (nothing left grinding).
    const p0 = Date.now();
    await h.t.lua("return require('acpchat.host.bridge').call_sync('ping', {}, 5000)");
    expect(Date.now() - p0).toBeLessThan(1000);
  });
});
