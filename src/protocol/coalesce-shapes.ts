/**
 * The fast path of coalesced notifications: the shapes of notifications learned from lines that
 * were parsed and checked in full, and lines matched against them as text (no JSON.parse for a
 * streamed chunk). JsonRpcPeer gathers the matched lines into runs (see JsonRpcPeer.coalesce).
 */

/**
 * A notification's text up to the string at its end, learned from one that was parsed and
 * checked in full: every line `head + <JSON string> + tail` is that notification with another
 * string there (see JsonRpcPeer.coalesce).
 */
export interface Shape {
  method: string;
  head: string;
  tail: string;
  /** The message it was learned from, as parsed, its string at `path` emptied (not kept alive). */
  msg: Record<string, unknown>;
  /** The keys from the message down to the string (`coalesce`'s path). */
  path: readonly string[];
  /** The accept function it was learned with. */
  accept: (params: unknown) => boolean;
  /** Whether the head was checked with another string (see learn), done when a line first matches it. */
  checked: boolean;
}

/** Shapes remembered at once (a few streams per session: message, thought, a few sessions). */
const MAX_SHAPES = 8;
/** Longest head learned (a real one is ~150 characters): every line is compared with the heads. */
const MAX_HEAD = 2048;
/** What a JSON string's text must not hold to be its own value: quote, backslash, controls. */
const NOT_PLAIN = /["\\\u0000-\u001f]/;

export class Shapes {
  /** Learned shapes, the one matched last first. */
  private shapes: Shape[] = [];
  /** Heads that failed their check (see check): never learned again. */
  private readonly rejected = new Set<string>();

  get size(): number {
    return this.shapes.length;
  }

  /** The shape matched last. */
  get first(): Shape | undefined {
    return this.shapes[0];
  }

  /** The learned shapes, the one matched last first. */
  get all(): readonly Shape[] {
    return this.shapes;
  }

  /** Shapes of `method` are forgotten (it is no longer coalesced). */
  forget(method: string): void {
    this.shapes = this.shapes.filter((s) => s.method !== method);
  }

  /**
   * The string (unescaped) of `raw` when it is a line of a learned shape, which then is `first`;
   * undefined when it is none (the line is parsed). A shape matched for the first time is
   * checked first (see check). Nothing is allocated for a match: this runs once per chunk.
   */
  match(raw: string): string | undefined {
    const shapes = this.shapes;
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!;
      const open = shape.head.length;
      const close = raw.length - shape.tail.length;
      if (
        close - open < 2 ||
        raw.charCodeAt(open) !== 34 ||
        raw.charCodeAt(close - 1) !== 34 ||
        !raw.endsWith(shape.tail) ||
        !raw.startsWith(shape.head)
      )
        continue;
      if (!shape.checked) {
        if (!this.check(shape)) {
          // Not the notification it looks like: forgotten for good, and this line parsed.
          shapes.splice(i, 1);
          if (this.rejected.size >= 64) this.rejected.clear();
          this.rejected.add(shape.head);
          return undefined;
        }
        shape.checked = true;
      }
      let text = raw.slice(open + 1, close - 1);
      if (NOT_PLAIN.test(text)) {
        // Escapes (a newline is `\n`): the string alone is parsed; it must be one JSON string.
        try {
          text = JSON.parse(raw.slice(open, close)) as string;
        } catch {
          return undefined;
        }
      }
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(shape);
      }
      return text;
    }
    return undefined;
  }

  /**
   * Remember the shape of a notification that was parsed from `raw` when `accept` takes it and
   * its text ends with the string at `path`, written as JSON.stringify writes it right after a
   * colon, and the closing braces of the objects on the path: then `raw` minus that string and
   * those braces is a head that any line of the same shape starts with. That the string there is
   * the one at `path` (not a later duplicate key, nor another field's that comes last) is
   * checked once, when a line first matches the head (see check), by parsing the head with
   * another string: the result must be the message with only the value at `path` changed. Whatever string a later line holds there, it is then that
   * message with that string at `path` (the rest of the line is the same text).
   */
  learn(
    raw: string,
    msg: Record<string, unknown>,
    path: readonly string[],
    accept: (params: unknown) => boolean,
  ): void {
    if (!accept(msg.params)) return;
    let v: unknown = msg;
    for (const k of path) {
      if (!isObject(v) || !Object.hasOwn(v, k)) return;
      v = v[k];
    }
    if (typeof v !== "string") return;
    const tail = "}".repeat(path.length);
    const literal = JSON.stringify(v);
    const at = raw.length - tail.length - literal.length;
    if (
      at < 1 ||
      at > MAX_HEAD ||
      raw.charCodeAt(at - 1) !== 58 /* : */ ||
      !raw.endsWith(tail) ||
      raw.slice(at, at + literal.length) !== literal
    )
      return;
    const head = raw.slice(0, at);
    if (this.rejected.has(head) || this.shapes.some((s) => s.head === head)) return;
    const empty = withString(msg, path, 0, "") as Record<string, unknown>;
    this.shapes.unshift({ method: msg.method as string, head, tail, msg: empty, path, accept, checked: false });
    if (this.shapes.length > MAX_SHAPES) this.shapes.pop();
  }

  /**
   * Whether `shape`'s head holds the string at its path (see learn): the head parsed with another
   * string must be its message with only that string changed, and still accepted. Done once per
   * shape, when a line first matches it (so heads that never repeat cost nothing more).
   */
  private check(shape: Shape): boolean {
    const probe = "\u0001";
    let probed: unknown;
    try {
      probed = JSON.parse(`${shape.head}${JSON.stringify(probe)}${shape.tail}`);
    } catch {
      return false;
    }
    return (
      isObject(probed) &&
      JSON.stringify(probed) === JSON.stringify(withString(shape.msg, shape.path, 0, probe)) &&
      shape.accept(probed.params)
    );
  }
}

/** A copy of `v` with the value at `path` (from `path[from]` on) replaced by `text`; copies only the objects on the way. */
export function withString(v: unknown, path: readonly string[], from: number, text: string): unknown {
  if (from >= path.length) return text;
  const o = v as Record<string, unknown>;
  const k = path[from]!;
  return { ...o, [k]: withString(o[k], path, from + 1, text) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
