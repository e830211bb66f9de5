/**
 * Every path-escape trick we know, end to end: reads, writes and terminal cwds aimed outside the
 * session's cwd are all denied, and the file system proves nothing outside was read or changed.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, setAgents, wrote } from "../support/chat.js";

const bins = nvimBins();

/** A snapshot of a folder: every file's path, size, mtime and content. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${p} ${st.size} ${st.mtimeMs} ${readFileSync(p, "utf8")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

export function escapeCases(work: string, outside: string) {
  const secret = join(outside, "secret.txt");
  const w = basename(work);
  const reads = [
    secret,
    `${work}/../${basename(outside)}/secret.txt`,
    `${work}/./../${basename(outside)}/secret.txt`,
    `${work}/sub/../../${basename(outside)}/secret.txt`,
    `../${basename(outside)}/secret.txt`,
    `${work}/link_out/secret.txt`,
    `${work}/link_file`,
    `${work}/chain1`,
    `/proc/self/root${secret}`,
    `/proc/self/cwd/../${basename(outside)}/secret.txt`,
    `${work}/nonexistent/../../${basename(outside)}/secret.txt`,
    `/${secret}`,
    `${secret}/`,
    `${work}/../${w}-evil/secret.txt`,
    "/etc/passwd",
    `${work}/sub/link_up/${basename(outside)}/secret.txt`,
    `${work}/link_out/../${basename(outside)}/secret.txt`,
    `${work}/\u0000/../../${basename(outside)}/secret.txt`,
  ];
  const writes = [
    join(outside, "new.txt"),
    `${work}/link_out/new.txt`,
    `${work}/../${basename(outside)}/secret.txt`,
    `/proc/self/root${outside}/new2.txt`,
    `${work}/link_file`,
    `${work}/chain1`,
    `${work}/../${w}-evil/new.txt`,
    `../${basename(outside)}/new3.txt`,
    `${work}/sub/link_up/${basename(outside)}/new4.txt`,
  ];
  const cwds = [
    "/tmp",
    `${work}/..`,
    outside,
    `${work}/link_out`,
    `/proc/self/root/tmp`,
    "..",
    "//tmp",
    `${work}/sub/link_up`,
    `${work}/../${w}-evil`,
  ];
  return { reads, writes, cwds };
}

describe.each(bins)("Neovim $version", (bin) => {
  it("denies 36 escapes across read, write and terminal cwd, and changes nothing outside", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const outside = join(t.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "TOP SECRET\n");
    mkdirSync(`${work}-evil`);
    writeFileSync(join(`${work}-evil`, "secret.txt"), "EVIL TWIN\n");
    mkdirSync(join(work, "sub"));
    symlinkSync(outside, join(work, "link_out"));
    symlinkSync(join(outside, "secret.txt"), join(work, "link_file"));
    symlinkSync(join(work, "chain2"), join(work, "chain1"));
    symlinkSync(join(outside, "secret.txt"), join(work, "chain2"));
    symlinkSync(t.dir, join(work, "sub", "link_up"));
    writeFileSync(join(work, "inside.txt"), "fine\n");
    const before = snapshot(outside) + snapshot(`${work}-evil`);

    const { reads, writes, cwds } = escapeCases(work, outside);
    const steps = [
      ...reads.map((path) => ({ request: "fs/read_text_file", params: { path }, echo: true })),
      ...writes.map((path) => ({ request: "fs/write_text_file", params: { path, content: "PWNED\n" }, echo: true })),
      ...cwds.map((cwd) => ({
        request: "terminal/create",
        params: { command: "sh", args: ["-c", "echo PWNED > pwned.txt"], cwd },
        echo: true,
      })),
      // The controls: inside the cwd all three work.
      { request: "fs/read_text_file", params: { path: join(work, "inside.txt") }, echo: true },
      { request: "fs/write_text_file", params: { path: join(work, "sub", "ok.txt"), content: "ok\n" }, echo: true },
      { request: "terminal/create", params: { command: "true", cwd: join(work, "sub") }, echo: true },
    ];
    await setAgents(t, { fake: { turns: [steps] } }, { write: "buffer" });
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend escape");
    await c.turns(1, 30_000);
    const text = await c.text();
    const replies = [...text.matchAll(/\{"jsonrpc":"2\.0".*?\}(?=\{"jsonrpc"|$|\n)/gs)].map(
      (m) => JSON.parse(m[0]) as { result?: unknown; error?: { code: number; message: string } },
    );
    const n = reads.length + writes.length + cwds.length;
    expect(n).toBeGreaterThanOrEqual(36);
    expect(replies).toHaveLength(n + 3);
    const denied = replies.slice(0, n);
    for (const [i, r] of denied.entries()) {
      expect(r.error, `case ${i}: ${JSON.stringify(r)}`).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/Access denied/),
      });
    }
    expect(replies[n]!.result).toEqual({ content: "fine\n" });
    expect(replies[n + 1]!.result).toEqual(wrote());
    expect(replies[n + 2]!.result).toMatchObject({ terminalId: expect.any(String) });
    // Nothing outside changed, and no terminal ran outside.
    expect(snapshot(outside) + snapshot(`${work}-evil`)).toBe(before);
    expect(text).not.toContain("TOP SECRET");
    expect(text).not.toContain("EVIL TWIN");
    expect(readdirSync(t.dir)).not.toContain("pwned.txt");
    expect(readdirSync("/tmp")).not.toContain("pwned.txt");
    // Each denial is noted in the transcript.
    expect(text.match(/^! Denied: /gm)?.length).toBe(n);
  }, 60_000);
});
