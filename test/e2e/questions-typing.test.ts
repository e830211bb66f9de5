/**
 * Questions never catch your typing: a question that comes while the user types in
 * the prompt waits, shown in the winbar and the transcript with the key that answers it; it
 * opens (Neovim's own vim.ui.select, with a UI attached and keys fed as a user types) when the
 * user is out of Insert mode and stops typing, or presses the key, and what was typed stays in
 * the prompt.
 * Every question names its agent and chat, and goes to that chat's tab only when asked to.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { startChat, type Chat } from "../support/chat.js";

const bins = nvimBins();

const ASK = [
  { sleep: 500 },
  {
    request: "session/request_permission",
    params: {
      toolCall: { toolCallId: "t1", title: "Touch a file", kind: "edit" },
      options: [
        { optionId: "ok", name: "Allow", kind: "allow_once" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
    },
    echo: true,
  },
  { text: "\nturn over" },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Neovim's own vim.ui.select, each call recorded in _G.opened (prompt, mode, tab). */
async function recordSelect(c: Chat) {
  await c.t.lua(`_G.opened = {}
    local orig = vim.ui.select
    vim.ui.select = function(items, opts, cb)
      local labels = {}
      for _, it in ipairs(items) do labels[#labels + 1] = opts.format_item and opts.format_item(it) or tostring(it) end
      table.insert(_G.opened, { prompt = opts.prompt, mode = vim.api.nvim_get_mode().mode, labels = labels, tab = vim.fn.tabpagenr() })
      return orig(items, opts, cb)
    end`);
}
const opened = (c: Chat) =>
  c.t.lua<{ prompt: string; mode: string; labels: string[]; tab: number }[]>("return _G.opened");

/** Type `text` into the prompt a key at a time, as a user does. */
async function typeSlowly(c: Chat, text: string, ms = 70) {
  for (const ch of text) {
    await c.t.nvim.input(ch === " " ? "<Space>" : ch);
    await sleep(ms);
  }
}

/**
 * What the attached UI was sent to draw, as text (the lines drawn, in order). Neovim 0.10 takes
 * no request while the built-in list waits for its answer, so the test looks at the screen.
 */
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
  return {
    mark: () => drawn.length,
    since: (at: number) => drawn.slice(at),
  };
}

/** Wait until the built-in list is drawn (after `at`); how long it took. */
async function listShown(_c: Chat, screen: ReturnType<typeof watchScreen>, at: number, ms: number): Promise<number> {
  const start = Date.now();
  while (!screen.since(at).includes("Type number and <Enter>")) {
    if (Date.now() - start > ms)
      throw new Error(`the question did not open within ${ms} ms; drawn:\n${screen.since(at).slice(-2000)}`);
    await sleep(20);
  }
  return Date.now() - start;
}

/** A chat with the question's scenario, a UI attached, the user in the prompt in Insert mode. */
async function typingChat(bin: (typeof bins)[number]) {
  const c = await startChat(bin, { turns: [ASK] });
  await c.ready();
  const screen = watchScreen(c);
  await c.t.nvim.uiAttach(160, 40, { ext_linegrid: true });
  await recordSelect(c);
  await c.focusPrompt();
  await c.t.nvim.input("<Esc>i");
  await c.send("go");
  return { c, screen };
}

async function answered(c: Chat, option: string) {
  await c.turns(1);
  expect(await c.text()).toContain(`"optionId":"${option}"`);
}

describe.each(bins)("Neovim $version: questions never catch your typing", (bin) => {
  it("a question that comes while the user types waits (winbar and transcript say so); it opens once they leave Insert mode and stop; the typing stays", async () => {
    const { c, screen } = await typingChat(bin);
    const typed = "next idea 12 and more";
    await typeSlowly(c, typed);
    // The question came while typing (0.5 s in): shown, not opened.
    expect(await opened(c)).toEqual([]);
    expect(await c.winbar()).toContain("? <M-a> answers: allow Touch a file");
    const virt = await c.t.lua<string>(
      `local ns = vim.api.nvim_get_namespaces().acpchat_waiting
      local m = vim.api.nvim_buf_get_extmarks(..., ns, 0, -1, { details = true })
      return m[1] and m[1][4].virt_lines[1][1][1] or ''`,
      [c.buf],
    );
    expect(virt).toContain("? The agent asks: allow Touch a file");
    expect(await c.promptLines()).toEqual([typed]);
    // A pause in Insert mode does not open it (the next key would land in its list).
    await sleep(2000);
    expect(await opened(c)).toEqual([]);
    // Out of Insert mode, it opens once the keys stop, naming its agent and chat.
    const at = screen.mark();
    await c.t.nvim.input("<Esc>");
    const waited = await listShown(c, screen, at, 4000);
    expect(waited).toBeGreaterThan(800);
    await c.t.nvim.input("1<CR>");
    await answered(c, "ok");
    const q = (await opened(c))[0]!;
    expect(q.prompt.split("\n")[0]).toBe("[fake · chat 1] Allow the agent to: Touch a file [edit]");
    expect(q.mode).toBe("n");
    expect(await c.winbar()).not.toContain("? <M-a>");
    expect(await c.promptLines()).toEqual([typed]);
  });

  it("keys typed before the question opened never answer it", async () => {
    const { c, screen } = await typingChat(bin);
    await typeSlowly(c, "abc 2 def 1");
    expect(await opened(c)).toEqual([]);
    const at = screen.mark();
    await c.t.nvim.input("<Esc>");
    await listShown(c, screen, at, 4000);
    await c.t.nvim.input("2<CR>");
    await answered(c, "no");
    expect((await opened(c))[0]!.mode).toBe("n");
    expect(await c.promptLines()).toEqual(["abc 2 def 1"]);
  });

  it("the answer key opens the waiting question while typing", async () => {
    const { c, screen } = await typingChat(bin);
    await typeSlowly(c, "still typing");
    expect(await opened(c)).toEqual([]);
    const at = screen.mark();
    await c.t.nvim.input("<M-a>");
    expect(await listShown(c, screen, at, 1000)).toBeLessThan(1000);
    await c.t.nvim.input("1<CR>");
    await answered(c, "ok");
    expect(await c.promptLines()).toEqual(["still typing"]);
  });

  it("a question from a chat in another tab says so, and goes to that tab only when the user picks it", async () => {
    const c = await startChat(bin, { turns: [ASK] });
    await c.ready();
    await c.t.lua(`_G.opened = {}
      vim.ui.select = function(items, opts, cb)
        local labels = {}
        for _, it in ipairs(items) do labels[#labels + 1] = opts.format_item(it) end
        table.insert(_G.opened, { prompt = opts.prompt, labels = labels, tab = vim.fn.tabpagenr() })
        for _, it in ipairs(items) do
          if (#_G.opened == 1 and it.go_to_chat) or (#_G.opened > 1 and it.kind == 'allow_once') then
            return vim.schedule(function() cb(it) end)
          end
        end
        cb(nil)
      end`);
    await c.t.nvim.command("stopinsert");
    await c.t.nvim.command("tabnew");
    await c.send("go");
    await answered(c, "ok");
    const [first, second] = await opened(c);
    expect(first!.tab).toBe(2);
    expect(first!.prompt.split("\n")[0]).toBe("[fake · chat 1 · tab 1] Allow the agent to: Touch a file [edit]");
    expect(first!.labels).toContain("Go to chat 1 first (ask there)");
    expect(second!.tab).toBe(1);
    expect(second!.prompt.split("\n")[0]).toBe("[fake · chat 1] Allow the agent to: Touch a file [edit]");
    expect(await c.t.lua<number>("return vim.fn.tabpagenr()")).toBe(1);
  });

  it('write = "review": a review opened with <M-a> from Insert mode takes review keys; ZZ with nothing accepted asks, Esc keeps the review, only its reject rejects', async () => {
    const before = "one\ntwo\nthree\n";
    const write = {
      request: "fs/write_text_file",
      params: { path: "$DIR/work/r.txt", content: "one\nTWO\nthree\n" },
      echo: true,
    };
    const c = await startChat(bin, { turns: [[{ sleep: 500 }, write, { text: "\nturn over" }]] }, { write: "review" });
    const f = join(c.t.dir, "work", "r.txt");
    writeFileSync(f, before);
    await c.ready();
    const screen = watchScreen(c);
    await c.t.nvim.uiAttach(160, 40, { ext_linegrid: true });
    await c.focusPrompt();
    await c.t.nvim.input("<Esc>i");
    await c.send("go");
    await typeSlowly(c, "still typing");
    await c.t.waitFor(async () => (await c.winbar()).includes("? <M-a>"), "the held review in the winbar");
    await c.t.nvim.input("<M-a>");
    await c.t.waitFor(
      async () => /acpchat:\/\/review\//.test(await c.t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    // Its tab says what it is (not the scratch buffer's name).
    await c.t.waitFor(async () => screen.since(0).includes(" review r.txt "), "the review tab's label");
    // The user is in the review's Normal mode: the next keys are the review's, not text.
    expect(await c.t.lua<string>("return vim.api.nvim_get_mode().mode")).toBe("n");
    const winbar = await c.t.lua<string>("return vim.wo.winbar");
    expect(winbar).toContain("ZZ: write 0 of 1 = reject");
    let at = screen.mark();
    await typeSlowly(c, "ZZ");
    await listShown(c, screen, at, 2000);
    expect(screen.since(at)).toContain("ZZ with nothing accepted rejects the change:");
    // Esc closes the list: the review stays open, nothing answered, the file as it was.
    await c.t.nvim.input("<Esc>");
    await sleep(300);
    expect(await c.t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")).toBe(1);
    expect(await c.text()).not.toContain("turn over");
    expect(await c.t.lua<string>("return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), ',')")).toBe(
      "one,two,three",
    );
    // Choosing its reject answers the write with a rejection.
    at = screen.mark();
    await typeSlowly(c, "ZZ");
    await listShown(c, screen, at, 2000);
    await c.t.nvim.input("1<CR>");
    await c.turns(1);
    expect(await c.text()).toContain("rejected");
    expect(readFileSync(f, "utf8")).toBe(before);
    expect(await c.promptLines()).toEqual(["still typing"]);
  });
});
