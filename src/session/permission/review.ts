/**
 * "Show the diff first" in a permission question: the per-hunk review itself. Each
 * diff of the tool call opens in review (old side: the file as it is, when the agent sent no
 * old text or only the replaced snippet); accepting every hunk allows, rejecting every hunk
 * rejects, a subset allows and keeps only the accepted hunks:
 *
 * - an agent that writes through the client: its write is cut down to the accepted hunks
 *   (PartialEdits.forWrite, used by NvimPort's write path);
 * - an agent that writes itself: right after its tool call ends, the rejected hunks are put
 *   back in the file (PartialEdits.afterToolCall), as a three-way merge, so nothing else is lost.
 */
import { DEFAULT_MAX_READ_BYTES, diskSnapshot } from "../../workspace/disk.js";
import type { PermissionOutcome, RequestPermissionRequest } from "../../protocol/schema.js";
import { compose, diffTexts, type Hunk } from "../../workspace/hunks.js";
import { joinText, sameText, splitText, type Text, type TextFile } from "../../workspace/text-codec.js";
import { rebase } from "../../workspace/three-way.js";
import { acceptedHunks, shownLines, tooLargeToCompare } from "../../workspace/write-plan.js";
import { applyRestore, type LiveFiles } from "../../checkpoints/apply.js";
import type { ReviewAnswer, ReviewQuestion } from "../../wire/index.js";

/** One diff of a tool call as the user saw it: the whole file before and after, its hunks. */
interface Proposal {
  path: string;
  disk: Text | undefined;
  before: Text;
  after: Text;
  hunks: Hunk[];
  /** `before` is a buffer with unsaved edits of the user's. */
  unsaved?: true;
}

/** A diff the user accepted only in part. */
export interface PartialEdit {
  toolCallId: string;
  path: string;
  /** The file before it, the agent's whole proposal, and what the user keeps of it (texts as shown). */
  before: Text;
  /** The file on disk when it was asked about (undefined: not a text file). */
  disk: Text | undefined;
  full: Text;
  keep: Text;
  accepted: number;
  hunks: number;
}

export type AskReview = (question: ReviewQuestion) => Promise<ReviewAnswer | undefined>;

/**
 * The file's current text: its buffer when it holds unsaved edits, else the disk (a buffer
 * without edits may not have reloaded yet what the agent just wrote); `like`: how it is encoded.
 */
async function currentText(
  path: string,
  live: LiveFiles,
  maxBytes: number,
): Promise<{ text: Text; like?: TextFile; unsaved?: true } | undefined> {
  const b = await live.buffer(path);
  if (b?.modified) return { text: b.text, unsaved: true };
  return diskText(path, maxBytes);
}

/** The file on disk, decoded (a missing or unreadable file reads as no text; undefined: not a text file). */
async function diskText(path: string, maxBytes: number): Promise<{ text: Text; like?: TextFile } | undefined> {
  const d = await diskSnapshot(path, maxBytes).catch(() => undefined);
  if (!d?.exists) return { text: { lines: [], eol: false } };
  return d.file ? { text: { lines: d.file.lines, eol: d.file.eol }, like: d.file } : undefined;
}

/**
 * The whole-file sides of a diff: with no old text (claude-agent-acp's Write) the old side is
 * the file as it is; with the replaced snippet only (an Edit), the snippet is replaced in it.
 */
export function wholeFile(
  now: Text | undefined,
  oldText: string | null | undefined,
  newText: string,
): { before: Text; after: Text } {
  const current = now ?? { lines: [], eol: false };
  const whole = joinText(current);
  const old = oldText ?? "";
  if (old === "" || old === whole) return { before: current, after: splitText(newText) };
  const at = whole.indexOf(old);
  if (at >= 0 && whole.indexOf(old, at + 1) < 0)
    return { before: current, after: splitText(whole.slice(0, at) + newText + whole.slice(at + old.length)) };
  // Not found in the file (it changed meanwhile): the agent's two texts as they are.
  return { before: splitText(old), after: splitText(newText) };
}

export class PartialEdits {
  private readonly pending: PartialEdit[] = [];

  /** `maxBytes`: the session's read limit (fs.max_read_bytes); a larger file is not read. */
  constructor(private readonly maxBytes = DEFAULT_MAX_READ_BYTES) {}

  /**
   * Review each diff of the tool call hunk by hunk; the answer to give the agent (an option of
   * its own), and the partial edits to carry out.
   */
  async review(req: RequestPermissionRequest, live: LiveFiles, ask: AskReview): Promise<PermissionOutcome> {
    const proposals: Proposal[] = [];
    for (const c of req.toolCall.content ?? []) {
      if (c.type !== "diff") continue;
      const now = await currentText(c.path, live, this.maxBytes);
      const { before, after } = wholeFile(now?.text, c.oldText, c.newText);
      proposals.push({
        path: c.path,
        unsaved: now?.unsaved,
        disk: (await diskText(c.path, this.maxBytes))?.text,
        before,
        after,
        hunks: diffTexts(before, after).hunks,
      });
    }
    let accepted = 0;
    let total = 0;
    const partial: PartialEdit[] = [];
    for (const p of proposals) {
      const current = shownLines(p.before.lines);
      const proposed = shownLines(p.after.lines);
      const answer = await ask({
        path: p.path,
        reason: "permission",
        current: current.text,
        currentLines: p.before.lines.length,
        proposed: proposed.text,
        proposedLines: p.after.lines.length,
        cut: current.cut + proposed.cut,
        hunks: p.hunks,
        added: p.hunks.reduce((n, h) => n + h.newCount, 0),
        removed: p.hunks.reduce((n, h) => n + h.oldCount, 0),
        whole: tooLargeToCompare(p.before, p.after),
        ...(p.unsaved ? { unsaved: true } : {}),
      });
      if (answer === undefined) return { outcome: "cancelled" };
      const chosen = acceptedHunks(p.hunks, answer);
      accepted += chosen.length;
      total += p.hunks.length;
      // Every proposal is kept, when the call is allowed: a wholly accepted one so that its
      // write through the client is not reviewed again, a partly accepted one to be cut down or
      // put back, and a wholly rejected one too (another file of the same call was accepted, so
      // the agent is allowed and writes this one as well: it must be put back whole).
      if (p.hunks.length > 0) {
        partial.push({
          toolCallId: req.toolCall.toolCallId,
          path: p.path,
          disk: p.disk,
          before: p.before,
          full: p.after,
          keep: compose(p.before, p.after, p.hunks, chosen),
          accepted: chosen.length,
          hunks: p.hunks.length,
        });
      }
    }
    const allow = accepted > 0 || total === 0;
    const option = pickOption(req, allow);
    if (!option) return { outcome: "cancelled" };
    if (allow) this.pending.push(...partial);
    if (this.pending.length > 32) this.pending.splice(0, this.pending.length - 32);
    return { outcome: "selected", optionId: option };
  }

  /**
   * A write through the client that carries out a partly accepted edit: the content cut down
   * to the accepted hunks (undefined: no partial edit for it). `exact`: the write is the very
   * proposal the user reviewed; anything else it carries was never seen, so is reviewed again.
   */
  forWrite(path: string, content: string): { content: string; edit: PartialEdit; exact: boolean } | undefined {
    const real = splitText(content);
    const i = this.pending.findIndex((e) => e.path === path && keepOf(e, real) !== undefined);
    if (i < 0) return undefined;
    const edit = this.pending.splice(i, 1)[0]!;
    return { content: joinText(keepOf(edit, real)!), edit, exact: sameText(real, edit.full) };
  }

  /**
   * The tool call ended: the rejected hunks of its partly accepted edits are put back in the
   * files (three-way: only those lines change). What was done, for the transcript and the agent.
   */
  async afterToolCall(toolCallId: string, live: LiveFiles, check: (abs: string) => void): Promise<string[]> {
    const notes: string[] = [];
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const e = this.pending[i]!;
      if (e.toolCallId !== toolCallId) continue;
      this.pending.splice(i, 1);
      if (e.accepted === e.hunks) continue;
      // An agent that writes itself writes the disk: that is where its hunks are (a buffer with
      // the user's unsaved edits never had them).
      const cur = await diskText(e.path, this.maxBytes);
      const now = cur?.text;
      // The tool call wrote nothing there (it failed, or wrote elsewhere): nothing to take out,
      // and nothing to tell (saying "the other hunks are still in it" would be untrue).
      if (now && e.disk && sameText(now, e.disk) && !sameText(e.disk, e.full)) continue;
      const kept =
        e.accepted === 0
          ? `the user rejected the whole edit to ${e.path}`
          : `the user kept ${e.accepted} of the ${e.hunks} hunks of the edit to ${e.path}`;
      if (!now || sameText(now, e.keep)) {
        notes.push(e.accepted === 0 ? `${kept}; the file does not have it` : `${kept}; the file has just those`);
        continue;
      }
      const target = keepOf(e, now);
      if (!target) {
        notes.push(`${kept}, but the file changed in the same lines, so the other hunks are still in it`);
        continue;
      }
      // The disk is put right; a buffer with unsaved edits is left as the user has it (it is
      // told the file changed on disk, as after any write of the agent's own).
      const buf = await live.buffer(e.path);
      const onDisk: LiveFiles = buf?.modified
        ? { ...live, buffer: async () => undefined, reload: async () => undefined }
        : live;
      const done = await applyRestore(e.path, { action: "merge", text: target, like: cur?.like }, onDisk, check).catch(
        (err: unknown) => ({ done: false as const, why: (err as Error).message }),
      );
      notes.push(
        done.done
          ? `${kept}; ${e.accepted === 0 ? "it was" : "the other hunks were"} taken out of the file again`
          : `${kept}, but ${e.accepted === 0 ? "it" : "the others"} could not be taken out: ${done.why}`,
      );
    }
    return notes;
  }
}

/** What the user keeps of edit `e`, applied to the file's real text (which may hold what the shown text had redacted). */
function keepOf(e: PartialEdit, real: Text): Text | undefined {
  if (sameText(real, e.full)) return e.keep;
  return rebase(e.full, e.keep, real);
}

/** The agent's option for allowing (or rejecting) once, else always. */
function pickOption(req: RequestPermissionRequest, allow: boolean): string | undefined {
  const kinds = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  for (const k of kinds) {
    const o = req.options.find((x) => x.kind === k);
    if (o) return o.optionId;
  }
  return undefined;
}
