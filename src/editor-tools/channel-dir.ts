/**
 * Where editor channels keep their sockets: a per-user folder, and the sweep of folders left by
 * hosts that were killed before they could remove theirs.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
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

/** Channel folders of hosts that are gone (killed before they could remove them). */
export function sweepStale(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^acpchat-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try {
      const dir = join(base, name);
      if (statSync(dir).uid === process.getuid?.()) rmSync(dir, { recursive: true, force: true });
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
