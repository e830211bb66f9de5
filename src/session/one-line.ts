/**
 * Text from the agent made safe for one line of the editor: the transcript's views, the
 * permission questions and a session's title all go through it.
 */

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
/** Control characters (C0, DEL, C1), bidi controls, zero-width characters, line and paragraph separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * One line, safe to draw: newlines and control, bidi and zero-width characters escaped
 * (`\n`, `\u{202e}`), capped at `max` characters with "…". An agent cannot draw a fake option
 * on a line of its own, or hide a command behind a right-to-left override.
 */
export function oneLine(s: string, max = 200): string {
  const out = s.replace(UNSAFE, (c) => ESCAPES[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`);
  if (out.length <= max) return out;
  const chars = [...out];
  return chars.length <= max ? out : `${chars.slice(0, max - 1).join("")}…`;
}
