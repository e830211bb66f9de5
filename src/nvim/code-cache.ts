/**
 * The remote plugin's bundle (dist/acpchat.cjs, 1.6 MB) loaded with a V8 code cache: V8 then
 * deserialises the functions it compiled before instead of parsing and compiling them again, at
 * every host's start (~130 ms of CPU here). Node 20 has no module.enableCompileCache, so the
 * bundle is compiled as a vm.Script with `cachedData` and run as CommonJS, the way Node's own
 * loader would (same file name and lines in stack traces).
 *
 * Where the cache lives:
 *   - `npm run build` writes `dist/acpchat.cjs.v8cache` beside the bundle, after running its top
 *     level (so the functions that run at start are in it): see scripts/build.mjs.
 *   - When that one does not fit (another Node, other V8 flags, a bundle rebuilt without it), the
 *     host writes its own to `$ACPCHAT_CACHE_DIR` (Lua passes stdpath("cache")/acpchat), a few
 *     seconds after its start, keyed on all of the above, and uses it from the next start on.
 * A cache file names the bundle's SHA-1, Node's version and arch, and its own payload's
 * SHA-1: V8 checks only the source's length and its own version, and does not checksum the data
 * in release builds, so a stale or damaged file is refused here. Anything refused, missing or
 * unreadable means a plain compile: slower, never wrong. Built into dist/code-cache.cjs, which
 * rplugin/node/acpchat/index.js requires.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";

/** How this host's bundle was loaded (ping answers it, :checkhealth shows it). */
export interface CodeCacheStatus {
  used: boolean;
  /** The cache file read, or the one written for the next start. */
  file?: string;
  why: string;
}

const STATUS = Symbol.for("acpchat.codeCache");
const MAGIC = "acpchat-v8cache 1";
/** How long after the start a host writes its own cache: off the first answers' way, and late
 * enough that what a first chat compiles is in it too. */
const WRITE_AFTER_MS = 4000;

type Global = typeof globalThis & { [STATUS]?: CodeCacheStatus };

/** The status the loader left, or why there is none (the bundle was required directly). */
export function codeCacheStatus(): CodeCacheStatus {
  return (globalThis as Global)[STATUS] ?? { used: false, why: "the bundle was loaded without the code cache loader" };
}

const sha1 = (data: Buffer | string) => createHash("sha1").update(data).digest("hex");

/**
 * What a cache must have been made for: this bundle and this Node. V8 checks its own flags (a
 * cache made under others is refused, then this host writes its own); Node's flags (a profiler's
 * --cpu-prof) do not change the code, so a profiled host measures the cached start as users have it.
 */
export function cacheKey(source: Buffer): string {
  return sha1([sha1(source), process.version, process.arch, process.versions.v8].join("\0"));
}

/** The file beside the bundle that `npm run build` writes. */
export const besideFile = (bundle: string) => `${bundle}.v8cache`;
/** The host's own, in the user's cache folder (the key in the name: one per Node). */
export const userFile = (dir: string, bundle: string, key: string) =>
  join(dir, `${basename(bundle)}-${key.slice(0, 16)}.v8cache`);

/** The payload of a cache file made for `key`, or why not. */
export function readCacheFile(file: string, key: string): { data: Buffer } | { why: string } {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch {
    return { why: `no cache file ${file}` };
  }
  const nl = raw.indexOf(10);
  const head = nl > 0 ? raw.subarray(0, nl).toString("latin1").split(" ") : [];
  if (head.length !== 4 || `${head[0]} ${head[1]}` !== MAGIC) return { why: `${file} is not a code cache` };
  if (head[2] !== key) return { why: `${file} was made for another bundle or Node` };
  const data = raw.subarray(nl + 1);
  if (sha1(data) !== head[3]) return { why: `${file} is damaged` };
  return { data };
}

/** Writes a cache file whole or not at all (a temp file renamed over it). */
export function writeCacheFile(file: string, key: string, data: Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC} ${key} ${sha1(data)}\n`, "latin1"), data]));
  renameSync(tmp, file);
}

/** A cache file of another Node or bundle is swept only after this long unused (two Nodes may share the folder). */
const SWEEP_UNUSED_MS = 14 * 24 * 3600_000;
/** A temp file this old was left by a write that failed (a full disk), not one under way. */
const SWEEP_TEMP_MS = 3600_000;

/**
 * The user cache's other files for this bundle, made for a Node or bundle no longer in use:
 * those unused for two weeks (another Neovim's host may run another Node and use its own file
 * every day: sweeping it at once made both compile at every start), and temp files a failed
 * write left. A file in use is touched when it is read (loadBundle).
 */
export function sweep(dir: string, bundle: string, keep: string): void {
  const prefix = `${basename(bundle)}-`;
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!name.startsWith(prefix) || path === keep) continue;
    const age = now - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now);
    if (age > (name.endsWith(".tmp") ? SWEEP_TEMP_MS : SWEEP_UNUSED_MS)) rmSync(path, { force: true });
  }
}

export interface LoadOptions {
  /** The user's cache folder: read when the built cache does not fit, written when neither does. */
  userDir?: string;
  /** `npm run build`: compile without a cache and write the one beside the bundle. */
  build?: boolean;
}

/** Compiles and runs `bundle` as a CommonJS module, with a cache when one fits; its exports. */
export function loadBundle(bundle: string, opts: LoadOptions = {}): unknown {
  // --enable-source-maps maps the stacks of modules Node's loader loaded: leave it the bundle.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) {
    (globalThis as Global)[STATUS] = { used: false, why: "source maps are on (--enable-source-maps): plain require" };
    return Module.createRequire(bundle)(bundle);
  }
  const source = readFileSync(bundle);
  const key = cacheKey(source);
  const tried: string[] = [];
  let cached: { data: Buffer; file: string } | undefined;
  const candidates = opts.build
    ? []
    : [besideFile(bundle), ...(opts.userDir ? [userFile(opts.userDir, bundle, key)] : [])];
  let script: vm.Script | undefined;
  const code = Module.wrap(source.toString("utf8"));
  for (const file of candidates) {
    const got = readCacheFile(file, key);
    if ("why" in got) {
      tried.push(got.why);
      continue;
    }
    script = new vm.Script(code, { filename: bundle, cachedData: got.data });
    if (!script.cachedDataRejected) {
      cached = { data: got.data, file };
      break;
    }
    tried.push(`V8 refused ${file}`);
  }
  script ??= new vm.Script(code, { filename: bundle });
  const mod = new Module(bundle);
  mod.filename = bundle;
  mod.paths = (Module as unknown as { _nodeModulePaths(d: string): string[] })._nodeModulePaths(dirname(bundle));
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, dirname(bundle));
  mod.loaded = true;
  // A later require() of the bundle (tests, the build) gets this instance, not a second one.
  (Module as unknown as { _cache: Record<string, unknown> })._cache[bundle] = mod;

  let status: CodeCacheStatus;
  if (cached) {
    status = { used: true, file: cached.file, why: "loaded from the code cache" };
    // In use: another Node's host sweeping the user folder keeps it (sweep).
    if (cached.file !== besideFile(bundle)) {
      const at = new Date();
      try {
        utimesSync(cached.file, at, at);
      } catch {
        // a read-only folder: nothing sweeps it either
      }
    }
  } else if (opts.build) {
    const file = besideFile(bundle);
    writeCacheFile(file, key, script.createCachedData());
    status = { used: false, file, why: "compiled, cache written (build)" };
  } else if (opts.userDir) {
    const file = userFile(opts.userDir, bundle, key);
    const made = script;
    const dir = opts.userDir;
    setTimeout(() => {
      try {
        writeCacheFile(file, key, made.createCachedData());
        sweep(dir, bundle, file);
      } catch {
        // A read-only or full cache folder: the next start compiles again, as this one did.
      }
    }, WRITE_AFTER_MS).unref();
    status = { used: false, file, why: `${tried.join("; ")}: compiled, the next start's cache is written to ${file}` };
  } else status = { used: false, why: `${tried.join("; ")}: compiled` };
  (globalThis as Global)[STATUS] = status;
  return mod.exports;
}
