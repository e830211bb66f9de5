/**
 * Hostile questions: permission options that share an id, malformed forms, agent text that
 * tries to draw fake choices, hide a secret or disguise a URL in a question.
 */
import { describe, expect, it } from "vitest";
import { call, replies } from "../support/chat.js";
import { start, stillUsable } from "./harness.js";

const announce = { update: { sessionUpdate: "tool_call", toolCallId: "rm", status: "pending", title: "`rm -rf build`", kind: "execute", rawInput: { command: "rm -rf build" } } };

/** vim.ui.select picks the item whose fields match `_G.want` (a table); every question lands in _G.asked. */
const PICK = `
  _G.asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, it in ipairs(items) do labels[i] = opts.format_item and opts.format_item(it) or tostring(it) end
    table.insert(_G.asked, { prompt = opts.prompt, labels = labels })
    local want = table.remove(_G.want or {}, 1) or {}
    for i, it in ipairs(items) do
      local ok = true
      for k, v in pairs(want) do
        if k == "label" then ok = ok and labels[i]:find(v, 1, true) ~= nil elseif type(it) ~= "table" or it[k] ~= v then ok = false end
      end
      if ok and next(want) then return on_choice(it, i) end
    end
    on_choice(nil, nil)
  end`;

describe("hostile questions", () => {
  it("two permission options with one id: the question is refused, nothing is remembered, the agent is told", async () => {
    const options = [
      { optionId: "same", name: "Yes, always", kind: "allow_always" },
      { optionId: "same", name: "No, never", kind: "reject_always" },
      { optionId: "once", name: "Yes", kind: "allow_once" },
    ];
    const ask = { request: "session/request_permission", params: { toolCall: { toolCallId: "rm" }, options }, echo: true };
    const h = await start({ turns: [[announce, ask], [announce, ask]] });
    await h.t.lua(PICK);
    // The user chooses "No, never (reject always, remember for this project)", twice.
    await h.t.lua("_G.want = { { kind = 'reject_always', remember = 'project' }, { kind = 'reject_always', remember = 'project' } }");
    await h.ready();
    for (const n of [1, 2]) {
      await h.send("go");
      await h.turns(n);
    }
    const answers = (await replies(h)).filter((r) => "result" in r || "error" in r);
    expect(answers).toHaveLength(2);
    for (const a of answers) {
      expect(a.result).toBeUndefined();
      expect(a.error).toMatchObject({ code: -32602, message: expect.stringContaining('the optionId "same" is used by more than one option') });
    }
    // Never asked, never allowed, nothing remembered.
    expect(await h.t.lua("return #_G.asked")).toBe(0);
    expect(await call(h.t, "permissions", { chat: h.id })).toEqual([]);
    expect(await h.text()).toContain("Refused a permission question from the agent: two of its options have the same id (same)");
    expect(await stillUsable(h, 3)).toBe(true);
  });
});
