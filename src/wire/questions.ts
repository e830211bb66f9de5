/**
 * The question channel: each kind of question Node asks the user (the `ask` event) and the
 * answer Lua gives back (the `reply` call), one map. Questions.ask (src/nvim/questions.ts) and
 * the port that asks (src/nvim/nvim-port.ts) are typed by it, so a question and its answer are
 * named once; scripts/gen-contract-meta.mjs turns each kind into LuaCATS classes
 * (`acpchat.question.<Kind>`, `acpchat.answer.<Kind>`) for lua/acpchat/ask/. Answers come from
 * Lua: Node still checks each field it reads (an answer is data, not a promise kept).
 * Imports nothing (see transcript.ts).
 */
import type { NameValue } from "./config.js";
import type { Hunk } from "./buffers.js";

/** How the diff of a file the tool call would write reads, in figures (its texts stay in Node). */
export interface DiffFigures {
  path: string;
  added: number;
  removed: number;
  /** The file did not exist when this diff was first seen (agents send no old text for edits too). */
  isNew: boolean;
}

/** session/request_permission as the user is asked it: every text one line already. */
export interface PermissionQuestion {
  /** The request's own title (ACP v2), else the tool call's, else its id. */
  title: string;
  /** `title` is the request's own words (ACP v2: a question already), not a tool call's name. */
  ownTitle?: boolean;
  /** The tool call's title, when the request is titled apart from it. */
  subject?: string;
  description?: string;
  /** The tool call's kind (read, edit, execute, ...; "other" when it has none). */
  kind: string;
  toolCallId: string;
  /** `path` or `path:line`. */
  locations: string[];
  /** The tool call's raw input, compacted to one line. */
  input?: string;
  diffs: DiffFigures[];
  /** The agent's options, in its order; the answer names one by position. */
  options: { id: string; name: string; kind: "allow_once" | "allow_always" | "reject_once" | "reject_always" }[];
}

/**
 * The chosen option by its position in `options` (1-based, as Lua counts) and, for an "always"
 * answer, what the editor remembers it for; or `review`: the per-hunk review is the answer
 * (src/session/permission/review.ts asks it). Absent (nil): dismissed.
 */
export interface PermissionAnswer {
  option?: number;
  remember?: "session" | "project";
  review?: boolean;
}

/** A review of hunks in a diff tab: the current text on the left, the proposal on the right. */
export interface ReviewQuestion {
  path: string;
  /**
   * review: the write mode asks; conflict: the buffer has unsaved edits; merged: the buffer has
   * unsaved edits, kept, and the agent's change (made without them) is shown on top; refresh: the text
   * changed under an answered review; disk: the file changed on disk behind unsaved edits;
   * permission: "Show the diff first" in a permission question; changes: a take-back of a
   * recorded change (gd, :AcpChatReview), its hunks reversed.
   */
  reason: "review" | "conflict" | "merged" | "refresh" | "disk" | "permission" | "changes";
  /**
   * The current and proposed lines, each joined with "\n" (one string crosses to Lua far
   * faster than thousands), and how many lines each has ("" is zero lines or one empty line).
   */
  current: string;
  currentLines: number;
  proposed: string;
  proposedLines: number;
  hunks: Hunk[];
  added: number;
  removed: number;
  /** The diff gave up at its bound, or the file is too large for Vim's diff mode: show it whole. */
  whole: boolean;
  /** Only the final newline differs in the last hunk: say so (a diff view cannot show it). */
  eolChange?: "added" | "removed";
  /** Lines cut for the view (longer than SHOWN_LINE_CHARS), both sides. */
  cut?: number;
  /** changes: the step whose change it takes back, as the transcript names it. */
  step?: string;
  /** changes: one file of :AcpChatReview's loop (shown in the loop's own tab). */
  loop?: boolean;
  /**
   * permission: the left side is a buffer with unsaved edits of the user's, and an agent that
   * read the disk may propose hunks that undo them: say so before anything is accepted.
   */
  unsaved?: boolean;
}

/**
 * The hunks accepted, by their 0-based positions in `hunks` (a take-back: the hunks taken back);
 * `done`: the review closed. Absent (nil): dismissed.
 */
export interface ReviewAnswer {
  accepted?: number[];
  done?: boolean;
}

/** A form field as the editor asks it: labels only; `choices` are labels of values kept in Node. */
export interface ShownField {
  label: string;
  description?: string;
  required: boolean;
  /** "choice": pick one of `choices`; otherwise typed text (a number for number and integer). */
  type: "choice" | "string" | "number" | "integer";
  default?: string;
  choices?: string[];
}

/** Sign-in: pick a method (the answer is its position), or run a terminal sign-in (the answer is its exit code). */
export type AuthQuestion =
  | { how: "choose"; methods: { name: string; description?: string; terminal: boolean }[] }
  /** `title`: the method's name, for the terminal's buffer (one line, redacted). */
  | { how: "terminal"; command: string; args: string[]; env: NameValue[]; cwd: string; title: string };

/** choose: the method's position (1-based); terminal: the exit code (-1: it could not start). Absent (nil): dismissed. */
export type AuthAnswer = number;

/** elicitation/create as the user is asked it: a form field by field, a URL opened after the user agrees, or a mode the editor does not know. */
export type ElicitationQuestion =
  /** `url` is opened and `shown` is what the user sees of it (a secret in it redacted: `hidden`). */
  | { mode: "url"; message: string; url: string; shown: string; hidden: boolean }
  | { mode: "form"; message: string; fields: ShownField[] }
  | { mode: "other" };

/** One answered form field: `field` and `choice` count from 1 (the editor's positions). */
export interface FieldAnswer {
  field: number;
  choice?: number;
  text?: string;
}

/** What the user did; `answers`: the form's fields (accept). Absent (nil): dismissed. */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  answers?: FieldAnswer[];
}

/** Each kind of question: what Node asks, and what Lua answers (nil: dismissed or withdrawn). */
export interface QuestionMap {
  permission: { question: PermissionQuestion; answer: PermissionAnswer };
  review: { question: ReviewQuestion; answer: ReviewAnswer };
  auth: { question: AuthQuestion; answer: AuthAnswer };
  elicitation: { question: ElicitationQuestion; answer: ElicitationAnswer };
}

export type QuestionKind = keyof QuestionMap;

/** A question of any kind, as the `ask` event carries it. */
export type AnyQuestion = QuestionMap[QuestionKind]["question"];
/** An answer of any kind, as the `reply` call carries it. */
export type AnyAnswer = QuestionMap[QuestionKind]["answer"];
