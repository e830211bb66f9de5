/**
 * What an agent last knew of each file through the client, per session: the text of its last
 * whole read of a buffer holding the user's unsaved edits, or of its own last write to a loaded
 * buffer. A later whole-file write is what it built on that text, so write-plan.ts puts the
 * change on top of the user's edits from there (`agentSaw`). Only the agent's own requests are
 * recorded (not the client's reads for a question's diff); a new session starts knowing nothing.
 */
import type { Text } from "./text-codec.js";

/** Files remembered per chat, the most recent kept. */
const MAX_FILES = 64;
/** Larger texts are not kept: a write over them is shown as it is. */
const MAX_LINES = 50_000;

export class AgentSeen {
  /** A text, or how to make it (a numbered read's lines are unnumbered only if a write needs them). */
  private readonly texts = new Map<string, Text | (() => Text) | null>();

  /**
   * The agent (session `session`) read `path`: a buffer holding unsaved edits, whole (`text`)
   * or in part (null: what it saw is unknown); anything else is what the disk holds.
   */
  read(
    session: string,
    path: string,
    r: { modified: boolean; text: Text | (() => Text) | null; lines?: number },
  ): void {
    if (!r.modified) this.texts.delete(key(session, path));
    else this.keep(session, path, r.text, r.lines);
  }

  /** The agent wrote this text to the loaded buffer of `path`: from now on it takes the file to hold it. */
  wrote(session: string, path: string, text: Text): void {
    this.keep(session, path, text);
  }

  /** What it knew: a text, null (unknown), or undefined (nothing read through the client: the disk). */
  get(session: string, path: string): Text | null | undefined {
    const k = key(session, path);
    const t = this.texts.get(k);
    if (typeof t !== "function") return t;
    const text = t();
    this.texts.set(k, text);
    return text;
  }

  private keep(session: string, path: string, text: Text | (() => Text) | null, lines?: number): void {
    const k = key(session, path);
    this.texts.delete(k);
    const n = typeof text === "function" ? (lines ?? Number.POSITIVE_INFINITY) : text?.lines.length;
    this.texts.set(k, text && n !== undefined && n <= MAX_LINES ? text : null);
    if (this.texts.size > MAX_FILES) this.texts.delete(this.texts.keys().next().value!);
  }
}

const key = (session: string, path: string) => `${session}\0${path}`;
