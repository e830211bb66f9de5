/**
 * Whether a folder is unchanged since a moment, without git: every entry a snapshot could store
 * is lstat'ed in-process and must have its ctime before that moment. A snapshot of an unchanged
 * folder is then the last one again, and costs no git run (two git processes are 50-150 ms on a
 * busy machine, and every prompt waits for its start snapshot).
 *
 * ctime, not mtime: any change of a file (its bytes, mode, links, a rename) sets it to the
 * kernel's clock, and no program can set it back (`touch -d` and `cp -p` set the mtime only).
 * A file created or removed changes its folder's ctime. So "nothing has a ctime after t" means
 * nothing changed after t. The answer is "changed" (take a real snapshot) whenever it is not
 * sure: a file system whose clock may be another machine's (network and FUSE mounts), a mount
 * point inside the folder, an entry that vanished while looked at, a folder too large to walk
 * quickly.
 */
import { lstatSync, readdirSync, statfsSync, type Stats } from "node:fs";
import { join } from "node:path";

/**
 * Clock slack: the kernel stamps ctimes from a coarse clock (a tick behind the one Date.now()
 * reads), so a change at the snapshot's start may carry a time just before it.
 */
export const QUIET_SLACK_MS = 100;

/**
 * A walk past this many entries gives up: lstat in Node costs about 6 µs of CPU an entry, so
 * past a few thousand git's own listing (in C) is as cheap as the walk.
 */
export const QUIET_MAX_ENTRIES = 5_000;

/** Time the walk holds the host's loop before it lets other work run. */
const SLICE_MS = 4;

/**
 * Local Linux file systems whose ctimes come from this kernel's clock at sub-second precision:
 * ext2/3/4, xfs, btrfs, tmpfs, f2fs, zfs, overlayfs. Anything else (NFS, SMB, FUSE, vboxsf,
 * 9p: a server's or a daemon's clock; vfat, HFS+: seconds or coarser; another OS's numbers)
 * gets a real snapshot: a missed change is a rewind that loses the user's save.
 */
const LOCAL = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0x2fc12fc1, 0x794c7630]);

export interface QuietWalk {
  /** The folder. */
  root: string;
  /**
   * Relative paths never stored (a folder ends in "/"): changes there do not reach a snapshot
   * (the chat's ignored paths, the plugin's own state folder).
   */
  skip: (rel: string) => boolean;
}

/**
 * "unchanged" when no entry under `root` that a snapshot stores (nor a folder holding them)
 * changed after `since` (Date.now() ms, taken before that snapshot began listing); "large"
 * when the folder has more than QUIET_MAX_ENTRIES of them (not worth walking again).
 */
export async function unchangedSince(walk: QuietWalk, since: number): Promise<"unchanged" | "changed" | "large"> {
  const limit = since - QUIET_SLACK_MS;
  // The wall clock stepped back since (NTP, a restored VM): ctimes cannot be compared with it.
  if (process.platform !== "linux" || Date.now() < since) return "changed";
  let rootStat: Stats;
  try {
    rootStat = lstatSync(walk.root);
    if (!rootStat.isDirectory() || !LOCAL.has(statfsSync(walk.root).type)) return "changed";
    // ext3, or ext4 with small inodes, stamps whole seconds: a change just after `since` would
    // read as before it. A whole-second ctime on the folder says so (or, once in 10^9, is luck).
    if (lstatSync(walk.root, { bigint: true }).ctimeNs % 1_000_000_000n === 0n) return "changed";
  } catch {
    return "changed";
  }
  if (rootStat.ctimeMs >= limit) return "changed";
  const dev = rootStat.dev;
  const dirs: string[] = [""];
  let seen = 0;
  let sliceStart = performance.now();
  while (dirs.length > 0) {
    const rel = dirs.pop()!;
    let names: string[];
    try {
      names = readdirSync(rel === "" ? walk.root : join(walk.root, rel));
    } catch {
      return "changed";
    }
    for (const name of names) {
      // A repository's own folder (the user's, a nested one's): never part of a snapshot.
      if (name === ".git") continue;
      const p = rel === "" ? name : `${rel}/${name}`;
      let st: Stats;
      try {
        st = lstatSync(join(walk.root, p));
      } catch {
        return "changed"; // gone while looked at: it changed
      }
      const dir = st.isDirectory();
      if (walk.skip(dir ? `${p}/` : p)) continue;
      if (st.ctimeMs >= limit || st.dev !== dev) return "changed";
      if (dir) dirs.push(p);
      if (++seen > QUIET_MAX_ENTRIES) return "large";
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        sliceStart = performance.now();
      }
    }
  }
  return "unchanged";
}
