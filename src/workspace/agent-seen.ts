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
  private readonly texts = new Map<string, Text | null>();

  /**
   * The agent (session `session`) read `path`: a buffer holding unsaved edits, whole (`text`)
   * or in part (null: what it saw is unknown); anything else is what the disk holds.
   */
  read(session: string, path: string, r: { modified: boolean; text: Text | null }): void {
    if (!r.modified) this.texts.delete(key(session, path));
    else this.keep(session, path, r.text);
  }

  /** The agent wrote this text to the loaded buffer of `path`: from now on it takes the file to hold it. */
  wrote(session: string, path: string, text: Text): void {
    this.keep(session, path, text);
  }

  /** What it knew: a text, null (unknown), or undefined (nothing read through the client: the disk). */
  get(session: string, path: string): Text | null | undefined {
    return this.texts.get(key(session, path));
  }

  private keep(session: string, path: string, text: Text | null): void {
    const k = key(session, path);
    this.texts.delete(k);
    this.texts.set(k, text && text.lines.length <= MAX_LINES ? text : null);
    if (this.texts.size > MAX_FILES) this.texts.delete(this.texts.keys().next().value!);
  }
}

const key = (session: string, path: string) => `${session}\0${path}`;
