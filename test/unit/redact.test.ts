import { describe, expect, it } from "vitest";
import { Redactor, REDACTED } from "../../src/trace/redact.js";

describe("Redactor", () => {
  const r = new Redactor(["sk-live-abcdef123", "tok", "hunter22-password"]);

  it("redacts known secret values anywhere, ignoring values too short to be secrets", () => {
    expect(r.text("key sk-live-abcdef123 and tok")).toBe(`key ${REDACTED} and tok`);
  });

  it("redacts fields named like secrets, and name/value pairs, in objects", () => {
    const v = r.value({
      apiKey: "x",
      nested: { Authorization: "Bearer y", ok: "fine" },
      env: [
        { name: "GITHUB_TOKEN", value: "z" },
        { name: "PATH", value: "/bin" },
      ],
      n: 5,
    });
    expect(v).toEqual({
      apiKey: REDACTED,
      nested: { Authorization: REDACTED, ok: "fine" },
      env: [
        { name: "GITHUB_TOKEN", value: REDACTED },
        { name: "PATH", value: "/bin" },
      ],
      n: 5,
    });
  });

  it("redacts serialised JSON the same way, escapes included, without breaking it", () => {
    const obj = {
      password: 'a "quoted" one',
      client_secret: 42,
      headers: [{ name: "X-Api-Key", value: "abc\\\\def" }],
      text: "has hunter22-password inside",
      keep: "token-less",
    };
    const out = r.json(JSON.stringify(obj));
    const back = JSON.parse(out);
    expect(back).toEqual({
      password: REDACTED,
      client_secret: REDACTED,
      headers: [{ name: "X-Api-Key", value: REDACTED }],
      text: `has ${REDACTED} inside`,
      keep: "token-less",
    });
  });

  it("leaves the base64 bytes of images, audio and blobs as they are (a key-like run in them is chance)", () => {
    const data = "iVBORw0KGgo/AKIA0123456789ABCDEF+sk-live-abcdef123/AAAA==";
    const v = {
      sessionUpdate: "tool_call_update",
      content: [
        { type: "content", content: { type: "image", mimeType: "image/png", data } },
        { type: "content", content: { type: "audio", mimeType: "audio/wav", data } },
        { type: "content", content: { type: "resource", resource: { uri: "file:///x.bin", blob: data } } },
      ],
    };
    expect(r.value(v)).toEqual(v);
    // Text still is text: the same run in a text block is redacted.
    expect(r.value({ type: "text", text: data }).text).not.toContain("AKIA0123456789ABCDEF");
  });

  it("redacts a known value however JSON escapes it, by its value after parsing", () => {
    const secret = 'Zq9"x\\Vb7Lm2Pw';
    const q = new Redactor([secret]);
    const canonical = JSON.stringify({ text: `say ${secret} now` });
    expect(canonical).toContain('Zq9\\"x\\\\Vb7Lm2Pw');
    expect(JSON.parse(q.json(canonical))).toEqual({ text: `say ${REDACTED} now` });
    // Any character as a \u escape, `/` as `\/`: the line says the secret once parsed.
    const odd = String.raw`{"text":"say Zq9\u0022\u0078\\Vb7Lm2Pw now","k\/":"Zq9\"x\\Vb7Lm2Pw"}`;
    expect(JSON.parse(odd).text).toBe(`say ${secret} now`);
    expect(q.jsonHasKnownValue(odd)).toBe(true);
    expect(JSON.parse(q.json(odd))).toEqual({ text: `say ${REDACTED} now`, "k/": REDACTED });
    // A payload cut in the trace is a string holding serialised JSON: escaped twice.
    const clipped = JSON.stringify({ payload: `${JSON.stringify({ text: secret }).slice(0, 40)}… (cut)` });
    expect(q.json(clipped)).not.toContain("Vb7Lm2Pw");
    // A character outside the BMP as its two surrogates' escapes.
    const astral = new Redactor(["key-\u{1F600}-Vb7Lm2Pw"]);
    expect(astral.jsonHasKnownValue(String.raw`{"t":"key-\ud83d\ude00-Vb7Lm2Pw"}`)).toBe(true);
    expect(astral.json(String.raw`{"t":"key-\ud83d\ude00-Vb7Lm2Pw"}`)).toBe(`{"t":"${REDACTED}"}`);
    // A backslash that is itself escaped starts no escape: `\\u0078` is not an x.
    expect(q.jsonHasKnownValue(String.raw`{"t":"Zq9\"\\u0078\\Vb7Lm2Pw"}`)).toBe(false);
  });

  it("redacts every env and header value of MCP servers in session/new, whatever the names", () => {
    const msg = {
      method: "session/new",
      params: {
        mcpServers: [
          { name: "db", command: "x", args: ["--verbose"], env: [{ name: "DB_PASS", value: "short" }] },
          { type: "http", name: "h", url: "https://x", headers: [{ name: "X-Org", value: "org-1" }] },
        ],
      },
    };
    const out = JSON.parse(new Redactor().json(JSON.stringify(msg)));
    expect(out.params.mcpServers[0]).toEqual({
      name: "db",
      command: "x",
      args: ["--verbose"],
      env: [{ name: "DB_PASS", value: REDACTED }],
    });
    expect(out.params.mcpServers[1].headers).toEqual([{ name: "X-Org", value: REDACTED }]);
  });

  it("leaves ordinary JSON untouched (and fast: no secret words, no work)", () => {
    const s = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { text: "hello" } });
    expect(r.json(s)).toBe(s);
  });
});

describe("trace files", () => {
  it("keeps the newest 50 and deletes older ones", async () => {
    const { mkdtempSync, writeFileSync, readdirSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { pruneTraces } = await import("../../src/trace/trace-log.js");
    const dir = mkdtempSync(join(tmpdir(), "acpchat-traces-"));
    for (let i = 0; i < 60; i++)
      writeFileSync(join(dir, `2026-01-01T00-00-${String(i).padStart(2, "0")}-chat1.jsonl`), "{}\n");
    writeFileSync(join(dir, "sessions.json"), "[]");
    pruneTraces(dir, 50);
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(51);
    expect(left[0]).toBe("2026-01-01T00-00-10-chat1.jsonl");
    expect(left).toContain("sessions.json");
  });
});

describe("token counts", () => {
  it("numbers under *Tokens keys are kept (usage), strings under them and other secret keys are not", () => {
    const r = new Redactor();
    const text = JSON.stringify({
      usage: { inputTokens: 1200, outputTokens: 34, max_tokens: 9 },
      accessToken: "abcdef123456",
      pin: { password: 123456 },
    });
    const out = r.json(text);
    expect(out).toContain('"inputTokens":1200');
    expect(out).toContain('"max_tokens":9');
    expect(out).not.toContain("abcdef123456");
    expect(out).not.toContain("123456}");
    const v = r.value(JSON.parse(text)) as { usage: { inputTokens: unknown }; pin: { password: unknown } };
    expect(v.usage.inputTokens).toBe(1200);
    expect(v.pin.password).toBe("[REDACTED]");
  });
});
