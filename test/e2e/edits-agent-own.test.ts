/**
 * Agents that write and read files with their own file system (claude-agent-acp, claude-code-acp,
 * gemini-cli): a diff sent without old text for a file that exists is a diff against the file
 * as it was when the diff arrived (the buffer, or the disk), in the permission question and for
 * gd; a read of the disk while the buffer holds unsaved edits is said on the transcript.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { call, questions, recordQuestions, type Chat, shareNvim } from "../support/chat.js";
import { agentTurn, editsNvim } from "./edits-support.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const OPTIONS = [
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

/** claude-agent-acp's edit: a tool call whose diff has no old text, a question, then its own write (cp). */
function ownEdit(path: string, newText: string, from: string) {
  return [
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "e1",
        title: "Edit f.txt",
        kind: "edit",
        status: "pending",
        locations: [{ path }],
        content: [{ type: "diff", path, oldText: null, newText }],
      },
    },
    { request: "session/request_permission", params: { toolCall: { toolCallId: "e1" }, options: OPTIONS } },
    { request: "terminal/create", params: { command: "cp", args: [from, path] } },
    { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
    { update: { sessionUpdate: "tool_call_update", toolCallId: "e1", status: "completed" } },
    { text: "edited" },
  ];
}

/** The diffs gd shows for a tool call (the old side as the left window gets it). */
const toolDiffs = (c: Chat, id: string) =>
  call<{ path: string; old_text?: string; new_text: string }[]>(c.t, "tool_diffs", { chat: c.id, tool_call_id: id });

describe.each(bins)("Neovim $version", (bin) => {
  it("a diff without old text of a file on disk: the question says +4 -0, gd shows the file as it was before the write", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "f.txt");
    const after = [...lines.slice(0, 10), "new 1", "new 2", "new 3", "new 4", ...lines.slice(10)];
    writeFileSync(f, text(lines));
    writeFileSync(join(work, "f.next"), text(after));
    await recordQuestions(t);
    const c = await agentTurn(t, ownEdit(f, text(after), join(work, "f.next")));
    await c.turns(1, 15_000);
    expect(readFileSync(f, "utf8")).toBe(text(after));
    const [q] = await questions(t);
    expect(q!.prompt).toContain(`+4 -0 ${f}`);
    // The transcript's figures too (the tool call was drawn again when it completed).
    expect(await c.text()).toContain(`+4 -0 ${f}`);
    const [d] = await toolDiffs(c, "e1");
    expect(d).toMatchObject({ path: f, old_text: text(lines), new_text: text(after) });
  });

  it("a diff without old text of a file loaded with unsaved edits: the old side is the buffer", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "f.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'mine' })");
    const mine = ["mine", ...lines.slice(1)];
    const after = [...mine, "added"];
    writeFileSync(join(work, "f.next"), text(after));
    await recordQuestions(t, ["reject_once"]);
    const c = await agentTurn(
      t,
      ownEdit(f, text(after), join(work, "f.next"))
        .slice(0, 2)
        .concat([{ text: "stopped" }]),
    );
    await c.turns(1, 15_000);
    const [q] = await questions(t);
    expect(q!.prompt).toContain(`+1 -0 ${f}`);
    expect((await toolDiffs(c, "e1"))[0]!.old_text).toBe(text(mine));
  });

  it("an agent that reads a file itself while its buffer has unsaved edits: a note on that tool call; a read through the client gets none", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "u.txt");
    const g = join(work, "g.txt");
    const h = join(work, "h.txt");
    for (const p of [f, g, h]) writeFileSync(p, text(lines));
    for (const p of [h, g, f]) await t.nvim.command(`edit ${p}`);
    for (const p of [f, g])
      await t.lua("vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 0, 1, false, { 'unsaved' })", [p]);
    const readCall = (id: string, path: string, viaClient: boolean) => [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: id,
          title: `Read ${path}`,
          kind: "read",
          status: "in_progress",
          locations: [{ path }],
        },
      },
      ...(viaClient ? [{ request: "fs/read_text_file", params: { path } }] : []),
      { update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } },
    ];
    const c = await agentTurn(t, [
      ...readCall("r1", f, false),
      ...readCall("r2", g, true),
      ...readCall("r3", h, false),
      { sleep: 300 },
      { text: "read" },
    ]);
    await c.turns(1, 15_000);
    const tx = await c.text();
    expect(tx).toContain(
      `${f} has unsaved edits in the editor: fake read the file from disk, without them ("Read ${f}").`,
    );
    expect(tx).not.toContain(`${g} has unsaved edits`);
    expect(tx).not.toContain(`${h} has unsaved edits`);
  });

  it('"Show the diff first" opens the review: the file as it is on the left, the agent\'s on the right; ZQ rejects', async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "f.txt");
    const after = [...lines.slice(0, 10), "new 1", ...lines.slice(10)];
    writeFileSync(f, text(lines));
    await t.lua(`
      _G.shown = 0
      vim.ui.select = function(items, opts, on_choice)
        _G.shown = _G.shown + 1
        for _, it in ipairs(items) do
          if it.show_diff then return on_choice(it) end
        end
      end`);
    const c = await agentTurn(
      t,
      ownEdit(f, text(after), "/dev/null")
        .slice(0, 2)
        .concat([{ text: "stopped" }]),
    );
    const side = (which: string) =>
      `for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):find("/${which}/f.txt", 1, true) then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end end`;
    await t.waitFor(
      async () =>
        (await t.lua(side("proposed"))) !== null && (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2,
      "the review tab",
    );
    expect(await t.lua(side("result"))).toEqual(lines);
    expect(await t.lua(side("proposed"))).toEqual(after);
    await t.nvim.command("stopinsert");
    await t.nvim.input("ZQ");
    await c.turns(1, 15_000);
    expect(await t.lua("return _G.shown")).toBe(1);
    // The agent was answered with its reject option.
    const answers = (await c.trace()).filter((e) => e.dir === "out" && e.payload_json.includes('"optionId"'));
    expect(answers.map((e) => JSON.parse(e.payload_json).result?.outcome?.optionId)).toEqual(["no"]);
  });

  it("a diff without old text first sent after the write (the call completed) is kept as sent, not compared with the written file", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "late.txt");
    writeFileSync(f, "a\nb\n");
    const c = await agentTurn(t, [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "l1",
          title: "Write late.txt",
          kind: "edit",
          status: "in_progress",
          locations: [{ path: f }],
        },
      },
      { request: "terminal/create", params: { command: "sh", args: ["-c", `printf 'a\\nb\\nc\\n' > '${f}'`] } },
      { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
      {
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: "l1",
          status: "completed",
          content: [{ type: "diff", path: f, oldText: null, newText: "a\nb\nc\n" }],
        },
      },
      { sleep: 200 },
      { text: "done" },
    ]);
    await c.turns(1, 15_000);
    expect(readFileSync(f, "utf8")).toBe("a\nb\nc\n");
    expect((await toolDiffs(c, "l1"))[0]).toMatchObject({ path: f, new_text: "a\nb\nc\n" });
    expect((await toolDiffs(c, "l1"))[0]!.old_text).toBeUndefined();
  });

  it("a diff with no old text for a file that does not exist stays a new file", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "n.txt");
    await recordQuestions(t, ["reject_once"]);
    const c = await agentTurn(
      t,
      ownEdit(f, "a\nb\n", "/dev/null")
        .slice(0, 2)
        .concat([{ text: "stopped" }]),
    );
    await c.turns(1, 15_000);
    const [q] = await questions(t);
    expect(q!.prompt).toContain(`+2 -0 ${f}`);
    expect((await toolDiffs(c, "e1"))[0]!.old_text).toBeUndefined();
  });
});
