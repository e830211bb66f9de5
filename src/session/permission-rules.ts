/**
 * Client-side permission rules: configured ones (allow or reject by tool kind, tool name and
 * path glob) and remembered ones (the user chose an allow_always / reject_always option and
 * asked the client to remember it for this session or for the project). Project rules are
 * persisted in a JSON file (under Neovim's stdpath("state")).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { PermissionOption, RequestPermissionRequest } from "../protocol/schema.js";
import { resolveThroughLinks } from "../workspace/path-boundary.js";

export type RuleAction = "allow" | "reject";

export interface ConfiguredRule {
  /** Tool kind (read, edit, execute, …) or "*". */
  kind?: string;
  /** Tool name (or title) to match exactly; omitted: any. */
  tool?: string;
  /** Glob over every location of the call, relative to the cwd; omitted: any. */
  path?: string;
  action: RuleAction;
}

export interface RememberedRule {
  id: string;
  agent: string;
  tool: string;
  action: RuleAction;
  scope: "session" | "project";
}

export interface Decision {
  action: RuleAction;
  why: string;
  always: boolean;
}

/** What identifies "that tool" for remembering: its name, else kind and title. */
export function toolKey(req: RequestPermissionRequest): string {
  const tc = req.toolCall;
  return tc.name ?? `${tc.kind ?? "other"}: ${tc.title ?? tc.toolCallId}`;
}

/** Minimal glob: `*` within a path segment, `**` across segments, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

type Store = Record<string, RememberedRule[]>;

export class PermissionRules {
  private session: RememberedRule[] = [];
  private nextId = 0;
  private readonly cwd: string;

  constructor(
    private readonly agent: string,
    cwd: string,
    private readonly configured: ConfiguredRule[] = [],
    private readonly storeFile?: string,
  ) {
    this.cwd = resolveThroughLinks(cwd);
  }

  /** The rule that answers this request without asking, if any. */
  decide(req: RequestPermissionRequest): Decision | undefined {
    const key = toolKey(req);
    for (const r of [...this.session, ...this.project()]) {
      if (r.agent === this.agent && r.tool === key) return { action: r.action, why: `remembered for this ${r.scope}: ${r.action} ${key}`, always: true };
    }
    const tc = req.toolCall;
    const paths = (tc.locations ?? []).map((l) => relative(this.cwd, resolveThroughLinks(l.path)));
    for (const r of this.configured) {
      if (r.kind && r.kind !== "*" && r.kind !== (tc.kind ?? "other")) continue;
      if (r.tool && r.tool !== (tc.name ?? tc.title)) continue;
      if (r.path) {
        const re = globToRegExp(r.path);
        // Every location must match, and be inside the cwd.
        if (paths.length === 0 || !paths.every((p) => !p.startsWith("..") && re.test(p))) continue;
      }
      return { action: r.action, why: `rule ${JSON.stringify(r)}`, always: false };
    }
    return undefined;
  }

  remember(req: RequestPermissionRequest, action: RuleAction, scope: "session" | "project"): RememberedRule {
    const rule: RememberedRule = { id: `r${Date.now().toString(36)}${this.nextId++}`, agent: this.agent, tool: toolKey(req), action, scope };
    if (scope === "session") this.session.push(rule);
    else {
      const store = this.load();
      (store[this.cwd] ??= []).push(rule);
      this.save(store);
    }
    return rule;
  }

  list(): RememberedRule[] {
    return [...this.session, ...this.project()];
  }

  remove(id: string): boolean {
    const before = this.session.length;
    this.session = this.session.filter((r) => r.id !== id);
    if (this.session.length !== before) return true;
    const store = this.load();
    const rules = store[this.cwd] ?? [];
    const kept = rules.filter((r) => r.id !== id);
    if (kept.length === rules.length) return false;
    store[this.cwd] = kept;
    this.save(store);
    return true;
  }

  private project(): RememberedRule[] {
    return this.load()[this.cwd] ?? [];
  }

  private load(): Store {
    if (!this.storeFile) return {};
    try {
      return JSON.parse(readFileSync(this.storeFile, "utf8")) as Store;
    } catch {
      return {};
    }
  }

  private save(store: Store): void {
    if (!this.storeFile) return;
    mkdirSync(dirname(this.storeFile), { recursive: true });
    const tmp = `${this.storeFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(store, null, 2));
    renameSync(tmp, this.storeFile);
  }
}

/** The agent's option that carries out a decision (by kind; ids differ between agents). */
export function optionFor(options: PermissionOption[], d: Decision): PermissionOption | undefined {
  const prefer = d.action === "allow" ? (d.always ? ["allow_always", "allow_once"] : ["allow_once", "allow_always"]) : d.always ? ["reject_always", "reject_once"] : ["reject_once", "reject_always"];
  for (const kind of prefer) {
    const o = options.find((x) => x.kind === kind);
    if (o) return o;
  }
  return undefined;
}
