/**
 * "Nothing changed since the last quiet walk", known without walking again: inotify (fs.watch)
 * on every folder the walk read, each set before the walk read it. A walk of a real project
 * (lstat of every entry, quiet.ts) is 5-40 ms before every prompt reaches the agent; after it
 * found the folder unchanged, a watch that heard nothing since says the same for free.
 *
 * Trusted only when sure, else the walk runs as before:
 * - only after a walk that found nothing changed and heard no event while it ran (a change
 *   after an entry was looked at is heard: its folder was watched before);
 * - any event in a watched folder (a file written, created, removed, renamed, its mode or
 *   times set) ends the trust, except on a path no snapshot stores (ignored, the plugin's own);
 * - a folder holding a file with another hard link is never trusted: a write through the other
 *   name tells this folder nothing;
 * - a watch that cannot be set (the user's inotify limit) or fails ends it for good;
 * - events the kernel holds are read first (two turns of the host's loop).
 * A new folder is an event in its parent; the next walk watches it.
 * Not heard (the walk's ctimes see it, this does not): a write through a shared writable mmap,
 * which makes no inotify event. Editors, git and agents write files with write(2).
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";

/** Folders watched at most (each an inotify watch, from the user's limit shared by every program). */
export const WATCH_MAX_FOLDERS = 2_000;

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Nothing changed after this (Date.now() ms) as long as no event comes; undefined: not known. */
  private base: number | undefined;
  /** An event (or a reason for doubt) since the current walk began. */
  private heard = false;
  private broken = false;

  constructor(
    private readonly root: string,
    /** Relative paths no snapshot stores (quiet.ts's skip): their events are not changes. */
    private readonly skip: (rel: string) => boolean,
  ) {}

  /** Walks so far (tests count them). */
  walks = 0;

  /**
   * Whether nothing a snapshot stores changed after `since`: "unchanged" from the watch alone
   * when it is sure, else `walk`'s answer (quiet.ts's walk, told of this watch), which arms it.
   */
  async unchangedSince<R extends string>(
    since: number,
    walk: (watch: FolderWatch) => Promise<R>,
  ): Promise<R | "unchanged"> {
    if (await this.quietSince(since)) return "unchanged";
    this.begin();
    this.walks++;
    const r = await walk(this);
    if (r === "unchanged") this.settled(since);
    else if (r === "large") this.close(); // never walked again (snapshot.ts)
    return r;
  }

  /** Nothing changed after `since`, known from the watch alone (false: walk). */
  async quietSince(since: number): Promise<boolean> {
    if (!this.trusts(since)) return false;
    // The kernel queues an event as the change happens; the host reads it in a poll phase of
    // its loop. The second of two immediates comes after one.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    return this.trusts(since);
  }

  /** A walk begins: what it finds is trusted only if nothing is heard while it runs. */
  begin(): void {
    this.base = undefined;
    this.heard = false;
  }

  /** The walk is about to read folder `rel` ("" for the root): watched from now on. */
  folder(rel: string): void {
    if (this.broken || this.watchers.has(rel)) return;
    if (this.watchers.size >= WATCH_MAX_FOLDERS) return this.fail();
    try {
      const w = watch(rel === "" ? this.root : join(this.root, rel), { persistent: false }, (_type, name) =>
        this.event(rel, name),
      );
      w.on("error", () => this.fail());
      this.watchers.set(rel, w);
    } catch {
      this.fail();
    }
  }

  /** The walk met something a watch cannot vouch for (a file with another hard link). */
  doubt(): void {
    this.heard = true;
  }

  /** The walk found nothing changed after `since`, with every folder watched before it read it. */
  settled(since: number): void {
    if (!this.heard && !this.broken) this.base = since;
  }

  /** Every watch closed; never trusted again. */
  close(): void {
    this.broken = true;
    this.base = undefined;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private trusts(since: number): boolean {
    return !this.broken && !this.heard && this.base !== undefined && since >= this.base;
  }

  private event(folder: string, name: string | Buffer | null): void {
    if (name !== null) {
      const rel = folder === "" ? String(name) : `${folder}/${String(name)}`;
      if (this.skip(rel)) return;
    }
    this.heard = true;
    this.base = undefined;
  }

  private fail(): void {
    this.close();
  }
}
