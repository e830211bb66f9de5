/**
 * The client's own index of sessions, per project: agent, session id, title, cwd and last
 * activity. It makes resuming possible with agents that can load a session but cannot list
 * them. Stored as JSON (under Neovim's stdpath("state")).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface IndexedSession {
  agent: string;
  sessionId: string;
  cwd: string;
  title?: string;
  /** The user's own words of the first prompt (without context): the picker's title when the agent has none. */
  prompt?: string;
  updatedAt: string;
}

const MAX_PER_PROJECT = 200;

export class SessionIndex {
  constructor(private readonly file?: string) {}

  list(cwd: string, agent?: string): IndexedSession[] {
    return this.load()
      .filter((s) => s.cwd === cwd && (!agent || s.agent === agent))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  /** Add or refresh an entry (title kept unless a new one is given). */
  touch(entry: Omit<IndexedSession, "updatedAt"> & { updatedAt?: string }): void {
    if (!this.file) return;
    const all = this.load();
    const i = all.findIndex((s) => s.agent === entry.agent && s.sessionId === entry.sessionId);
    const prev = i >= 0 ? all[i] : undefined;
    const next: IndexedSession = {
      ...prev,
      ...entry,
      title: entry.title ?? prev?.title,
      // The session's first words: a resumed session keeps those of its first chat.
      prompt: prev?.prompt ?? entry.prompt,
      updatedAt: entry.updatedAt ?? new Date().toISOString(),
    };
    if (i >= 0) all[i] = next;
    else all.push(next);
    const mine = all.filter((s) => s.cwd === entry.cwd).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const drop = new Set(mine.slice(MAX_PER_PROJECT));
    this.save(all.filter((s) => !drop.has(s)));
  }

  remove(agent: string, sessionId: string): void {
    if (!this.file) return;
    this.save(this.load().filter((s) => !(s.agent === agent && s.sessionId === sessionId)));
  }

  private load(): IndexedSession[] {
    if (!this.file) return [];
    try {
      const v = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      return Array.isArray(v) ? (v as IndexedSession[]) : [];
    } catch {
      return [];
    }
  }

  private save(all: IndexedSession[]): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 1));
    renameSync(tmp, this.file);
  }
}
