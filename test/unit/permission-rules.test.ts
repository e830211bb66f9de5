import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { globToRegExp, optionFor, PermissionRules } from "../../src/session/permission/rules.js";
import type { RequestPermissionRequest } from "../../src/protocol/schema.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-rules-")));
const opts = [
  { optionId: "a1", name: "Allow", kind: "allow_once" as const },
  { optionId: "aa", name: "Always", kind: "allow_always" as const },
  { optionId: "r1", name: "Reject", kind: "reject_once" as const },
];
const req = (kind: string, title: string, paths: string[] = [], name?: string): RequestPermissionRequest => ({
  sessionId: "s",
  toolCall: { toolCallId: "t", kind, title, name, locations: paths.map((p) => ({ path: join(dir, p) })) },
  options: opts,
});

describe("permission rules", () => {
  it("globs: * within a segment, ** across, ? one character", () => {
    expect(globToRegExp("src/*.ts").test("src/a.ts")).toBe(true);
    expect(globToRegExp("src/*.ts").test("src/x/a.ts")).toBe(false);
    expect(globToRegExp("src/**/*.ts").test("src/x/y/a.ts")).toBe(true);
    expect(globToRegExp("**").test("anything/at/all")).toBe(true);
    expect(globToRegExp("a?.md").test("ab.md")).toBe(true);
    expect(globToRegExp("a.md").test("aXmd")).toBe(false);
  });

  it("configured rules match by kind, tool and path; every location must match and stay inside the cwd", () => {
    const r = new PermissionRules("claude", dir, [
      { kind: "read", path: "**", action: "allow" },
      { kind: "execute", tool: "Run rm -rf /", action: "reject" },
      { kind: "edit", path: "docs/**", action: "allow" },
    ]);
    expect(r.decide(req("read", "Read a", ["src/a.ts"]))?.action).toBe("allow");
    expect(r.decide(req("read", "Read outside", ["../etc/passwd"]))).toBeUndefined();
    expect(r.decide(req("read", "Read none"))).toBeUndefined(); // a path rule needs locations
    expect(r.decide(req("execute", "Run rm -rf /"))?.action).toBe("reject");
    expect(r.decide(req("execute", "Run ls"))).toBeUndefined();
    expect(r.decide(req("edit", "Edit", ["docs/a.md", "docs/b/c.md"]))?.action).toBe("allow");
    expect(r.decide(req("edit", "Edit", ["docs/a.md", "src/x.ts"]))).toBeUndefined();
  });

  it("remembers for the session or, persisted, for the project; rules can be removed", () => {
    const store = join(dir, "state", "permissions.json");
    const a = new PermissionRules("claude", dir, [], store);
    a.remember(req("execute", "Run npm test"), "allow", "session");
    const p = a.remember(req("edit", "Edit x", [], "Edit"), "reject", "project")!;
    expect(a.decide(req("execute", "Run npm test"))).toMatchObject({ action: "allow", always: true });
    expect(a.decide(req("edit", "Edit y", [], "Edit"))).toMatchObject({ action: "reject" });
    // A new chat in the same project sees the project rule, not the session one; another agent neither.
    const b = new PermissionRules("claude", dir, [], store);
    expect(b.decide(req("execute", "Run npm test"))).toBeUndefined();
    expect(b.decide(req("edit", "Edit z", [], "Edit"))?.action).toBe("reject");
    expect(new PermissionRules("gemini", dir, [], store).decide(req("edit", "Edit z", [], "Edit"))).toBeUndefined();
    expect(b.list().map((x) => x.id)).toEqual([p.id]);
    expect(b.remove(p.id)).toBe(true);
    expect(new PermissionRules("claude", dir, [], store).decide(req("edit", "Edit z", [], "Edit"))).toBeUndefined();
  });

  it("carries a decision out with the agent's option of the right kind", () => {
    expect(optionFor(opts, { action: "allow", why: "", always: true })?.optionId).toBe("aa");
    expect(optionFor(opts, { action: "allow", why: "", always: false })?.optionId).toBe("a1");
    expect(optionFor(opts, { action: "reject", why: "", always: true })?.optionId).toBe("r1");
    expect(optionFor(opts.slice(0, 2), { action: "reject", why: "", always: false })).toBeUndefined();
  });
});
