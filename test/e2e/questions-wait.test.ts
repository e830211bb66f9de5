/**
 * How a question waits and is answered: only by choosing one of its options. Closing the list
 * (Esc, q, an empty <CR>) leaves it waiting, shown in the winbar and as a block at the end of the
 * transcript (its choices and the key that opens it); the answer key or :AcpChatAnswer opens it
 * again. It never opens by itself into Insert mode, and reject is always a choice of its own.
 * Neovim's own vim.ui.select (the numbered list), a UI attached, keys typed one at a time.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { startChat, type Chat } from "../support/chat.js";

const bins = nvimBins();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ask(options: { optionId: string; name: string; kind: string }[], delay = 0, title = "Touch a file") {
  return [
    ...(delay ? [{ sleep: delay }] : []),
    {
      request: "session/request_permission",
      params: { toolCall: { toolCallId: "t1", title, kind: "edit" }, options },
      echo: true,
    },
    { text: "\nturn over" },
  ];
}
const ALLOW_REJECT = [
  { optionId: "ok", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

/** What the attached UI was sent to draw, as text (Neovim 0.10 takes no request while the list waits). */
function watchScreen(c: Chat) {
  let drawn = "";
  c.t.nvim.on("notification", (method: string, args: unknown[]) => {
    if (method !== "redraw") return;
    for (const ev of args as unknown[][]) {
      if (ev[0] !== "grid_line") continue;
      for (const l of ev.slice(1) as [number, number, number, [string, number?, number?][]][])
        drawn += l[3].map((cell) => cell[0].repeat(cell[2] ?? 1)).join("") + "\n";
    }
  });
  return { mark: () => drawn.length, since: (at: number) => drawn.slice(at) };
}

async function listShown(screen: ReturnType<typeof watchScreen>, at: number, ms: number): Promise<number> {
  const start = Date.now();
  while (!screen.since(at).includes("Type number and <Enter>")) {
    if (Date.now() - start > ms)
      throw new Error(`the question did not open within ${ms} ms; drawn:\n${screen.since(at).slice(-2000)}`);
    await sleep(20);
  }
  return Date.now() - start;
}

/** The question block's lines (virtual lines at the end of the transcript). */
const block = (c: Chat) =>
  c.t.lua<string[]>(
    `local ns = vim.api.nvim_get_namespaces().acpchat_waiting
     local out = {}
     for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., ns, 0, -1, { details = true })) do
       for _, l in ipairs(m[4].virt_lines or {}) do out[#out + 1] = l[1][1] end
     end
     return out`,
    [c.buf],
  );

/** Nothing answered yet: the agent's echo of the answer is not in the transcript. */
async function stillWaiting(c: Chat) {
  await sleep(300);
  const text = await c.text();
  expect(text).not.toContain('"outcome"');
  expect(await c.turnsEnded()).toBe(0);
}

async function chatWithUi(bin: (typeof bins)[number], turn: unknown[], width = 160) {
  const c = await startChat(bin, { turns: [turn] });
  await c.ready();
  const screen = watchScreen(c);
  await c.t.nvim.uiAttach(width, 40, { ext_linegrid: true } as never);
  await c.t.nvim.command("stopinsert");
  return { c, screen };
}

describe.each(bins)("Neovim $version: dismissing a question is never an answer", (bin) => {
  it("Esc, q and an empty <CR> in the list leave it waiting (winbar and transcript block); <M-a> opens it again", async () => {
    const { c, screen } = await chatWithUi(bin, ask(ALLOW_REJECT));
    let at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    for (const key of ["<Esc>", "q", "<CR>"]) {
      await c.t.nvim.input(key);
      await c.t.waitFor(async () => (await c.winbar()).includes("? <M-a> answers: allow Touch a file"), "parked");
      await stillWaiting(c);
      const lines = await block(c);
      expect(lines[0]).toBe("? The agent asks: allow Touch a file");
      expect(lines).toContain("  1. Allow (this call)");
      expect(lines).toContain("  2. Reject (this call)");
      const said = lines.join(" ").replace(/\s+/g, " ");
      expect(said).toContain("<M-a> or :AcpChatAnswer: open the list again");
      expect(said).toContain("Esc or q closes it and it keeps waiting");
      // A parked question does not open again by itself.
      at = screen.mark();
      await sleep(2500);
      expect(screen.since(at)).not.toContain("Type number and <Enter>");
      // The block's key opens it again, from the transcript.
      await c.focus();
      at = screen.mark();
      await c.t.nvim.input("<M-a>");
      await listShown(screen, at, 3000);
    }
    await c.t.nvim.input("2");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
    expect(await c.text()).toContain('"optionId":"no"');
    expect(await block(c)).toEqual([]);
    expect(await c.winbar()).not.toContain("? ");
  });

  it(":AcpChatAnswer opens the oldest waiting question", async () => {
    const { c, screen } = await chatWithUi(bin, ask(ALLOW_REJECT));
    let at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    await c.t.nvim.input("<Esc>");
    await c.t.waitFor(async () => (await block(c)).length > 0, "the question block");
    at = screen.mark();
    await c.t.nvim.input(":AcpChatAnswer<CR>");
    await listShown(screen, at, 3000);
    await c.t.nvim.input("1");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
    expect(await c.text()).toContain('"optionId":"ok"');
  });

  it("a question never opens by itself in Insert mode, even after a long pause; out of Insert mode it opens once the user stops", async () => {
    const { c, screen } = await chatWithUi(bin, ask(ALLOW_REJECT, 300));
    await c.focusPrompt();
    await c.t.nvim.input("i");
    await c.send("go");
    for (const ch of "half a wo") {
      await c.t.nvim.input(ch === " " ? "<Space>" : ch);
      await sleep(60);
    }
    let at = screen.mark();
    await c.t.waitFor(async () => (await c.winbar()).includes("? <M-a> answers: allow Touch a file"), "held");
    // The user thinks for 2.5 s, still in Insert mode: nothing opens into the prompt.
    await sleep(2500);
    expect(screen.since(at)).not.toContain("Type number and <Enter>");
    for (const ch of "rd 12") {
      await c.t.nvim.input(ch === " " ? "<Space>" : ch);
      await sleep(60);
    }
    expect(await c.promptLines()).toEqual(["half a word 12"]);
    // Leaving Insert mode and moving about: it waits until the keys stop.
    at = screen.mark();
    await c.t.nvim.input("<Esc>");
    await sleep(300);
    await c.t.nvim.input("0");
    await sleep(300);
    await c.t.nvim.input("$");
    const lastKey = Date.now();
    await listShown(screen, at, 5000);
    expect(Date.now() - lastKey).toBeGreaterThan(1300);
    await c.t.nvim.input("1");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
    expect(await c.text()).toContain('"optionId":"ok"');
    expect(await c.promptLines()).toEqual(["half a word 12"]);
  });

  it("reject is a choice of its own even when the agent offers none; choosing it cancels the question", async () => {
    const { c, screen } = await chatWithUi(bin, ask([{ optionId: "ok", name: "Allow", kind: "allow_once" }]));
    const at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    expect(screen.since(at)).toContain("2: Reject (the agent offered no reject option: its question is cancelled)");
    await c.t.nvim.input("2");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
    expect(await c.text()).toContain('"outcome":"cancelled"');
  });

  it("in a 65-column chat the winbar shows the key that answers, and the block fits the window", async () => {
    const title = "Run npm test -- --reporter=verbose --coverage in packages/core";
    const { c, screen } = await chatWithUi(bin, ask(ALLOW_REJECT, 0, title), 200);
    await c.t.lua("vim.api.nvim_win_set_width(vim.fn.win_findbuf(...)[1], 65)", [c.buf]);
    const at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    await c.t.nvim.input("<Esc>");
    await c.t.waitFor(async () => (await block(c)).length > 0, "the question block");
    expect(await c.t.lua<number>("return vim.api.nvim_win_get_width(vim.fn.win_findbuf(...)[1])", [c.buf])).toBe(65);
    const drawn = await c.t.lua<string>(
      `local w = vim.fn.win_findbuf(...)[1]
       return vim.api.nvim_eval_statusline(vim.wo[w].winbar, { winid = w, use_winbar = true, maxwidth = 65 }).str`,
      [c.buf],
    );
    expect(drawn).toContain("? <M-a> answers: allow Run npm test");
    for (const l of await block(c))
      expect(await c.t.lua<number>("return vim.fn.strdisplaywidth(...)", [l])).toBeLessThanOrEqual(63);
    expect((await block(c)).join(" ")).toContain("<M-a> or :AcpChatAnswer");
  });

  it("an option remembered for the project is named for what it does, not the agent's 'for this session'", async () => {
    const { c, screen } = await chatWithUi(
      bin,
      ask([
        { optionId: "once", name: "Allow once", kind: "allow_once" },
        { optionId: "sess", name: "Allow for this session", kind: "allow_always" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ]),
    );
    const at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    const drawn = screen.since(at);
    expect(drawn).toContain("3: Allow for this session (this session; the agent may keep it too)");
    expect(drawn).toContain("4: Always allow in this project (the editor keeps it; the agent may keep it too)");
    expect(drawn).not.toContain("Allow for this session (this project");
    await c.t.nvim.input("1");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
    expect(await c.text()).toContain('"optionId":"once"');
  });

  it("a codex-acp patch question shows the files it touches, not its call_id, turn_id or changes JSON", async () => {
    const turn = [
      {
        request: "session/request_permission",
        params: {
          toolCall: {
            toolCallId: "call_1",
            title: "Edit a.txt",
            kind: "edit",
            rawInput: {
              call_id: "call_1",
              turn_id: "7",
              started_at_ms: 1764000000000,
              auto_approved: false,
              changes: { "a.txt": { update: { unified_diff: "@@ -1 +1 @@\n-a\n+b\n" } } },
            },
          },
          options: ALLOW_REJECT,
        },
        echo: true,
      },
    ];
    const { c, screen } = await chatWithUi(bin, turn);
    const at = screen.mark();
    await c.send("go");
    await listShown(screen, at, 5000);
    const drawn = screen.since(at);
    expect(drawn).toContain("files: a.txt");
    for (const raw of ["call_id", "turn_id", "started_at_ms", "auto_approved", "unified_diff"])
      expect(drawn).not.toContain(raw);
    await c.t.nvim.input("2");
    await c.t.nvim.input("<CR>");
    await c.turns(1);
  });
});
