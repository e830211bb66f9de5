/**
 * Hostile questions: permission options that share an id, malformed forms, agent text that
 * tries to draw fake choices, hide a secret or disguise a URL in a question.
 */
import { describe, expect, it } from "vitest";
import { call, fakeAgent, nvim, openChat, received, replies } from "../support/chat.js";
import { bin, start, stillUsable, type H } from "./harness.js";

const announce = {
  update: {
    sessionUpdate: "tool_call",
    toolCallId: "rm",
    status: "pending",
    title: "`rm -rf build`",
    kind: "execute",
    rawInput: { command: "rm -rf build" },
  },
};

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
    const ask = {
      request: "session/request_permission",
      params: { toolCall: { toolCallId: "rm" }, options },
      echo: true,
    };
    const h = await start({
      turns: [
        [announce, ask],
        [announce, ask],
      ],
    });
    await h.t.lua(PICK);
    // The user chooses "Always reject in this project (the editor keeps it; the agent may keep it too)", twice.
    await h.t.lua(
      "_G.want = { { kind = 'reject_always', remember = 'project' }, { kind = 'reject_always', remember = 'project' } }",
    );
    await h.ready();
    for (const n of [1, 2]) {
      await h.send("go");
      await h.turns(n);
    }
    const answers = (await replies(h)).filter((r) => "result" in r || "error" in r);
    expect(answers).toHaveLength(2);
    for (const a of answers) {
      expect(a.result).toBeUndefined();
      expect(a.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('the optionId "same" is used by more than one option'),
      });
    }
    // Never asked, never allowed, nothing remembered.
    expect(await h.t.lua("return #_G.asked")).toBe(0);
    expect(await call(h.t, "permissions", { chat: h.id })).toEqual([]);
    expect(await h.text()).toContain(
      "Refused a permission question from the agent: two of its options have the same id (same)",
    );
    expect(await stillUsable(h, 3)).toBe(true);
  });

  it("malformed forms (a property that is a number, or null) are refused: one note, the agent told, the turn ends", async () => {
    const form = (properties: unknown) => ({
      request: "elicitation/create",
      params: { mode: "form", message: "Fill in", requestedSchema: { type: "object", properties } },
      echo: true,
    });
    const h = await start({ turns: [[form({ a: 5 })], [form({ a: null, b: { type: "string" } })]] });
    await h.t.lua(PICK);
    await h.ready();
    for (const n of [1, 2]) {
      await h.send("go");
      await h.turns(n);
    }
    const errors = (await replies(h)).map((r) => r.error as { code: number; message: string });
    expect(errors.map((e) => e.code)).toEqual([-32602, -32602]);
    expect(errors[0]!.message).toMatch(/^Invalid params for elicitation\/create: requestedSchema\.properties\.a: /);
    const notes = (await h.notes()).map((n) => n.msg);
    expect(
      notes.filter((m) => m.startsWith("acpchat: refused a question from the agent: requestedSchema.properties.a: ")),
    ).toHaveLength(2);
    expect(await h.t.lua("return #_G.asked")).toBe(0);
    expect(await messages(h)).not.toMatch(/Error executing|stack traceback/);
    expect(await stillUsable(h, 3)).toBe(true);
  });

  it("a question whose picker fails is dismissed with one note: the agent gets cancel / cancelled, the turn ends", async () => {
    const form = {
      request: "elicitation/create",
      params: {
        mode: "form",
        message: "Pick",
        requestedSchema: { type: "object", properties: { env: { type: "string", enum: ["a", "b"] } } },
      },
      echo: true,
    };
    const perm = {
      request: "session/request_permission",
      params: { toolCall: { toolCallId: "rm" }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }] },
      echo: true,
    };
    const h = await start({ turns: [[form, announce, perm]] });
    await h.t.lua("vim.ui.select = function() error('the picker broke') end");
    await h.ready();
    await h.send("go");
    await h.turns(1);
    const results = (await replies(h)).map((r) => r.result);
    expect(results).toEqual([{ action: "cancel" }, { outcome: { outcome: "cancelled" } }]);
    const notes = (await h.notes()).map((n) => n.msg).filter((m) => m.includes("could not be shown"));
    expect(notes).toEqual([
      "acpchat: the agent's question could not be shown, so it was dismissed: the picker broke (details: :AcpChatLog)",
      "acpchat: the agent's permission question could not be shown, so it was dismissed: the picker broke (details: :AcpChatLog)",
    ]);
    expect(await messages(h)).not.toMatch(/Error executing|stack traceback/);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  it("a form's text is shown redacted and on one line; the agent gets the values it offered", async () => {
    const form = {
      request: "elicitation/create",
      params: {
        mode: "form",
        message: `Deploy with ${SECRET}\n1: Allow everything\u202e`,
        requestedSchema: {
          type: "object",
          properties: {
            target: {
              type: "string",
              title: "Target\nfake",
              description: `key ${KEY}`,
              oneOf: [
                { const: "stg", title: `staging ${SECRET}` },
                { const: "prd", title: "prod\u202e" },
              ],
            },
            note: { type: "string", title: "Note", default: `token ${SECRET}` },
          },
          required: ["target"],
        },
      },
      echo: true,
    };
    const h = await start({ turns: [[form]] }, {}, { FAKE_SECRET: SECRET });
    await h.t.lua(PICK);
    await h.t.lua(
      "_G.want = { { label = 'prod' } }; _G.inputs = {}; vim.ui.input = function(opts, cb) table.insert(_G.inputs, opts); cb('hello') end",
    );
    await h.ready();
    await h.send("go");
    await h.turns(1);
    const [asked] = await h.t.lua<{ prompt: string; labels: string[] }[]>("return _G.asked");
    expect(asked!.prompt.split("\n")).toEqual([
      "[bad · chat 1] Deploy with [REDACTED]\\n1: Allow everything\\u{202e}",
      "Target\\nfake — key [REDACTED]:",
    ]);
    expect(asked!.labels).toEqual(["staging [REDACTED]", "prod\\u{202e}"]);
    // The default held a secret: it is not offered.
    expect(await h.t.lua("return _G.inputs[1].default")).toBeNull();
    expect(await h.t.lua("return _G.inputs[1].prompt")).toBe("[bad · chat 1] Note (optional): ");
    // The value behind the choice is the agent's own.
    expect((await replies(h))[0]!.result).toEqual({ action: "accept", content: { target: "prd", note: "hello" } });
    expect(JSON.stringify(await h.t.lua("return _G.asked"))).not.toContain(SECRET);
  });

  it("URL questions: the URL opened is the one shown; hidden characters and other schemes are refused; a secret in it is hidden", async () => {
    const url = (u: string, message = "Sign in") => ({
      request: "elicitation/create",
      params: { mode: "url", message, url: u, elicitationId: "e" },
      echo: true,
    });
    const h = await start(
      {
        turns: [
          [url("https://evil.example/\u202emoc.elgoog//:sptth")],
          [url("https://good.example/a\nhttps://other.example")],
          [url("javascript:alert(1)")],
          [url("https://раураl.example/login")],
          [url(`https://auth.example/cb?api_key=${SECRET}`, `Log in\nwith ${SECRET}`)],
        ],
      },
      {},
      { FAKE_SECRET: SECRET },
    );
    await h.t.lua(PICK);
    await h.t.lua(
      "_G.want = { { label = 'Open' }, { label = 'Open' } }; _G.opened = {}; vim.ui.open = function(u) table.insert(_G.opened, u); return {} end",
    );
    await h.ready();
    for (const n of [1, 2, 3, 4, 5]) {
      await h.send("go");
      await h.turns(n);
    }
    const rs = await replies(h);
    for (const r of rs.slice(0, 3)) expect((r.error as { code: number }).code).toBe(-32602);
    expect((rs[0]!.error as { message: string }).message).toContain("control, bidi or invisible characters");
    expect((rs[2]!.error as { message: string }).message).toContain(
      "only http and https addresses are opened, not javascript:",
    );
    expect(rs.slice(3).map((r) => r.result)).toEqual([{ action: "accept" }, { action: "accept" }]);
    const asked = await h.t.lua<{ prompt: string }[]>("return _G.asked");
    expect(asked.map((a) => a.prompt)).toEqual([
      "[bad · chat 1] Sign in\nOpens: https://xn--l-7sba6dbr.example/login",
      `[bad · chat 1] Log in\\nwith [REDACTED]\nOpens: https://auth.example/cb?api_key=[REDACTED]  (a secret in it is hidden here)`,
    ]);
    expect(await h.t.lua("return _G.opened")).toEqual([
      "https://xn--l-7sba6dbr.example/login",
      `https://auth.example/cb?api_key=${SECRET}`,
    ]);
    expect(
      (await h.notes()).filter((n) => n.msg.startsWith("acpchat: refused a question from the agent: url: ")),
    ).toHaveLength(3);
  });

  it("sign-in methods are shown redacted and on one line; the answer is the method chosen", async () => {
    const methods = [
      { id: "key", name: `Key ${SECRET}\n2: Browser`, description: `uses ${KEY}\u202e` },
      { id: "browser", name: "Browser" },
    ];
    const t = await nvim(bin);
    const scenario = { authRequired: true, authMethods: methods, record: "$DIR/record.jsonl" };
    await t.lua("require('acpchat').setup(...)", [
      { agents: { bad: fakeAgent(t, scenario, { env: { FAKE_SECRET: SECRET } }) }, default_agent: "bad" },
    ]);
    await t.lua(PICK);
    await t.lua("_G.want = { { label = 'Browser', index = 2 } }");
    const h = await openChat(t);
    await h.ready();
    const [asked] = await t.lua<{ prompt: string; labels: string[] }[]>("return _G.asked");
    expect(asked!.labels).toEqual(["Key [REDACTED]\\n2: Browser — uses [REDACTED]\\u{202e}", "Browser"]);
    expect(asked!.prompt).toBe("[bad · chat 1] The agent asks you to sign in:");
    expect(received(t.dir, "authenticate")).toEqual([{ methodId: "browser" }]);
  });
});

describe("hostile sign-in terminal", () => {
  it("a terminal method's name names the sign-in buffer redacted and on one line", async () => {
    const methods = [{ id: "login", name: `Browser ${SECRET}\nfake`, type: "terminal", args: ["--login"] }];
    const t = await nvim(bin);
    const scenario = { authRequired: true, authMethods: methods, authFile: "$DIR/authed" };
    await t.lua("require('acpchat').setup(...)", [
      { agents: { bad: fakeAgent(t, scenario, { env: { FAKE_SECRET: SECRET } }) }, default_agent: "bad" },
    ]);
    await t.lua(PICK);
    await t.lua("_G.want = { { index = 1 } }");
    const h = await openChat(t);
    await h.ready();
    const names = await t.lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())");
    const signIn = names.filter((n) => n.includes("sign-in"));
    expect(signIn).toEqual(["acpchat://sign-in/Browser [REDACTED]\\nfake"]);
  });
});

const SECRET = "hunter2-very-secret-value";
const KEY = "sk-ant-0123456789abcdefghijklmnop";

/** Neovim's :messages. */
function messages(h: H): Promise<string> {
  return h.t.lua<string>("return vim.fn.execute('messages')");
}
