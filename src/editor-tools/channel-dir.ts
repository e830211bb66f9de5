/**
 * Where editor channels keep their sockets: a per-user folder, and the sweep of folders left by
 * hosts that were killed before they could remove theirs.
 */
import { timingSafeEqual } from "node:crypto";
import { chmodSync, mkdtempSync, statSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A directory for the socket: $XDG_RUNTIME_DIR (per user, 0700) when there is one, else the temp dir. */
export function socketBase(): string {
  const run = process.env.XDG_RUNTIME_DIR;
  try {
    if (run && statSync(run).isDirectory()) return run;
  } catch {
    // fall through
  }
  return tmpdir();
}

/**
 * A fresh folder for a private socket: mkdtemp makes it 0700 (nobody else can reach a socket
 * inside it), and its name carries this host's pid, so that one left by a host that was killed
 * is swept (by the first folder made in a later host).
 */
export function privateSocketDir(): string {
  const base = socketBase();
  void sweepStale(base);
  const dir = mkdtempSync(join(base, `acpchat-${process.pid}-`));
  chmodSync(dir, 0o700);
  return dir;
}

/** Whether `given` is `token`, compared in constant time (a secret: no timing says how much matched). */
export function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The folders swept in this process: each once (a host's own leftovers come only from hosts before it). */
const swept = new Map<string, Promise<void>>();

/**
 * Channel folders of hosts that are gone (killed before they could remove them), removed once
 * per folder in this process and in the background: the temp folder can hold tens of thousands
 * of entries, and a chat's start must not wait for a listing of them.
 */
export function sweepStale(base: string): Promise<void> {
  let done = swept.get(base);
  if (!done) {
    done = sweep(base).catch(() => {});
    swept.set(base, done);
  }
  return done;
}

async function sweep(base: string): Promise<void> {
  for (const name of await readdir(base)) {
    const m = /^acpchat-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try {
      const dir = join(base, name);
      if ((await stat(dir)).uid === process.getuid?.()) await rm(dir, { recursive: true, force: true });
    } catch {
      // another user's, or gone already
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
