/**
 * The ACP agent registry (https://agentclientprotocol.com/get-started/registry): one
 * registry.json listing agents and how each is distributed (npx, uvx, or per-platform binary
 * archives). Fetched from `registry_url` (https, or a file path for offline use and tests),
 * cached with the time it was fetched; a failed fetch says why and falls back to the cache.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { lazy } from "../protocol/lazy-schema.js";
import { ID, notAnNpmSpec, notAUvSpec, notAVersion } from "./install-paths.js";

export const DEFAULT_REGISTRY_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

const Env = lazy(() => z.record(z.string(), z.string()).optional());
/** A string field checked by `why` (undefined: good), whose message names the value. */
const checked = (why: (v: string) => string | undefined) =>
  z.string().superRefine((v, ctx) => {
    const problem = why(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
const Npx = lazy(() => z.object({ package: checked(notAnNpmSpec), args: z.array(z.string()).optional(), env: Env }));
const Uvx = lazy(() => z.object({ package: checked(notAUvSpec), args: z.array(z.string()).optional(), env: Env }));
const Binary = lazy(() =>
  z.object({
    archive: z.string().min(1),
    /** The program in the archive: a relative path that stays inside it. */
    cmd: checked((c) =>
      c === "" || c.startsWith("/") || c.split(/[/\\]/).includes("..")
        ? `cmd ${JSON.stringify(c.slice(0, 120))} is not a relative path inside the archive`
        : undefined,
    ),
    /** The archive's SHA-256 (hex): checked when given. */
    sha256: checked((h) =>
      /^[0-9a-fA-F]{64}$/.test(h) ? undefined : `sha256 ${JSON.stringify(h.slice(0, 80))} is not 64 hex digits`,
    ).optional(),
    args: z.array(z.string()).optional(),
    env: Env,
  }),
);

export const RegistryAgent = lazy(() =>
  z.object({
    id: z.string().regex(ID, "an id of lowercase letters, digits and hyphens"),
    name: z.string(),
    version: checked(notAVersion),
    description: z.string().default(""),
    repository: z.string().nullish(),
    distribution: z.object({
      npx: Npx.optional(),
      uvx: Uvx.optional(),
      binary: z.record(z.string(), Binary).optional(),
    }),
  }),
);
export type RegistryAgent = z.infer<typeof RegistryAgent>;

export interface Registry {
  agents: RegistryAgent[];
  /** Agents the registry lists that this client could not read (with why). */
  skipped: string[];
  /** Where it came from: fetched now, or the cache (and why the fetch failed). */
  source: "fetched" | "cache";
  fetchedAt: number;
  problem?: string;
}

/** This machine as the registry names platforms: linux-x86_64, darwin-aarch64, ... */
export function platformKey(platform = process.platform, arch = process.arch): string {
  const os = platform === "win32" ? "windows" : platform;
  const cpu = arch === "x64" ? "x86_64" : arch === "arm64" ? "aarch64" : arch;
  return `${os}-${cpu}`;
}

function parse(text: string): { agents: RegistryAgent[]; skipped: string[] } {
  const raw = JSON.parse(text) as { agents?: unknown };
  if (!raw || !Array.isArray(raw.agents)) throw new Error("not a registry (no agents list)");
  const agents: RegistryAgent[] = [];
  const skipped: string[] = [];
  for (const a of raw.agents) {
    const r = RegistryAgent.safeParse(a);
    if (r.success) agents.push(r.data);
    else skipped.push(`${String((a as { id?: unknown })?.id ?? "?")}: ${r.error.issues[0]?.message ?? "invalid"}`);
  }
  return { agents, skipped };
}

/** Read the registry at `url` (https or a path), cached in `cacheFile`. */
export async function loadRegistry(url: string, cacheFile: string, signal?: AbortSignal): Promise<Registry> {
  try {
    const text = await readSource(url, signal);
    const parsed = parse(text);
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.tmp`;
    writeFileSync(tmp, JSON.stringify({ fetchedAt: Date.now(), url, text }));
    renameSync(tmp, cacheFile);
    return { ...parsed, source: "fetched", fetchedAt: Date.now() };
  } catch (e) {
    const why = (e as Error).message;
    if (!existsSync(cacheFile))
      throw new Error(`could not read the registry at ${url}: ${why} (and there is no cached copy)`);
    const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as { fetchedAt: number; text: string };
    return {
      ...parse(cached.text),
      source: "cache",
      fetchedAt: cached.fetchedAt,
      problem: `could not read the registry at ${url}: ${why}; using the copy from ${new Date(cached.fetchedAt).toISOString().slice(0, 16).replace("T", " ")}`,
    };
  }
}

async function readSource(url: string, signal?: AbortSignal): Promise<string> {
  if (url.startsWith("file://")) return readFile(fileURLToPath(url), "utf8");
  if (isAbsolute(url)) return readFile(url, "utf8");
  if (!url.startsWith("https://")) throw new Error("registry_url must be an https URL or a file path");
  const res = await fetch(url, { signal: signal ?? AbortSignal.timeout(20_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.text();
}

/** How an agent can be installed here, or why not. */
export function installMethod(
  a: RegistryAgent,
  has: { npm: boolean; uv: boolean },
  platform = platformKey(),
): { kind: "npx" | "uvx" | "binary" } | { kind: "none"; why: string } {
  const d = a.distribution;
  if (d.binary?.[platform]) return { kind: "binary" };
  if (d.npx && has.npm) return { kind: "npx" };
  if (d.uvx && has.uv) return { kind: "uvx" };
  // Only what this agent could use is said missing.
  const ways = [
    d.npx && !has.npm && "npm (not found)",
    d.uvx && !has.uv && "uv (not found)",
    d.binary && `a build for ${platform} (it has ${Object.keys(d.binary).join(", ")})`,
  ].filter(Boolean);
  return {
    kind: "none",
    why: ways.length > 0 ? `needs ${ways.join(" or ")}` : "the registry gives no way to install it",
  };
}
