/**
 * A terminal's retained output: the last `limit` bytes, cut from the start on a UTF-8 character
 * boundary (ACP: truncated from the beginning, `truncated: true`).
 *
 * Bytes are copied into blocks of at most 64 KiB; trimming drops whole blocks from the front and
 * moves an offset into the first one, so each byte costs O(1) however much flows through. Pipe
 * chunks are not kept as they come: thousands of tiny ones would cost more than their bytes.
 */
const MAX_BLOCK = 64 * 1024;
const MIN_BLOCK = 1024;

export class OutputBuffer {
  /** Live blocks are `blocks[head..]`; the ones before `head` are dropped, awaiting compaction. */
  private blocks: Buffer[] = [];
  private head = 0;
  /** Offset of the first retained byte in `blocks[head]`. */
  private start = 0;
  /** Bytes used in the last block. */
  private fill = 0;
  private size = 0;
  /** A full-size block dropped from the front, reused at the back: a flood allocates nothing. */
  private spare: Buffer | undefined;
  truncated = false;

  constructor(readonly limit: number) {}

  /** Retained bytes. */
  get bytes(): number {
    return this.size;
  }

  append(chunk: Buffer): void {
    // Only the last `limit` bytes of a chunk can survive; copy no more than that.
    if (chunk.length > this.limit) {
      this.drop(this.size);
      this.truncated = true;
      chunk = chunk.subarray(chunk.length - this.limit);
    }
    let at = 0;
    while (at < chunk.length) {
      let last = this.blocks[this.blocks.length - 1];
      if (this.head === this.blocks.length || !last || this.fill === last.length) {
        // Grow with the content, so a few bytes of output do not hold a 64 KiB block.
        const size = Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, this.size, chunk.length - at));
        last = size === MAX_BLOCK && this.spare ? this.spare : Buffer.allocUnsafe(size);
        this.spare = undefined;
        this.blocks.push(last);
        this.fill = 0;
        if (this.head === this.blocks.length - 1) this.start = 0;
      }
      const n = chunk.copy(last, this.fill, at);
      this.fill += n;
      at += n;
      this.size += n;
    }
    if (this.size > this.limit) {
      this.drop(this.size - this.limit);
      this.truncated = true;
    }
    if (this.truncated) this.alignStart();
  }

  /** The retained output as text. */
  text(): string {
    return this.slice(this.size).toString("utf8");
  }

  /** About the last `chars` characters, joining only the blocks needed (called on every output). */
  tail(chars: number): string {
    let bytes = this.slice(Math.min(this.size, chars * 4));
    // Do not start inside a character the cut went through.
    let skip = 0;
    while (skip < bytes.length && skip < 3 && isContinuation(bytes[skip]!)) skip++;
    bytes = bytes.subarray(skip);
    const text = bytes.toString("utf8");
    return text.length > chars ? text.slice(text.length - chars) : text;
  }

  /** The last `n` retained bytes (n <= size). */
  private slice(n: number): Buffer {
    const parts: Buffer[] = [];
    let need = n;
    for (let i = this.blocks.length - 1; i >= this.head && need > 0; i--) {
      const from = i === this.head ? this.start : 0;
      const to = i === this.blocks.length - 1 ? this.fill : this.blocks[i]!.length;
      const take = Math.min(need, to - from);
      parts.push(this.blocks[i]!.subarray(to - take, to));
      need -= take;
    }
    parts.reverse();
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n - need);
  }

  /** Forget the first `n` retained bytes. */
  private drop(n: number): void {
    this.size -= n;
    while (n > 0) {
      const block = this.blocks[this.head]!;
      const end = this.head === this.blocks.length - 1 ? this.fill : block.length;
      const avail = end - this.start;
      if (n < avail) {
        this.start += n;
        return;
      }
      n -= avail;
      if (block.length === MAX_BLOCK) this.spare = block;
      this.head++;
      this.start = 0;
    }
    if (this.head === this.blocks.length) {
      // Nothing left: start over (the last block may still be reused by the next append).
      this.blocks = [];
      this.head = 0;
      this.fill = 0;
    } else if (this.head > 16 && this.head * 2 > this.blocks.length) {
      // Compact now and then: amortised O(1) per dropped block.
      this.blocks = this.blocks.slice(this.head);
      this.head = 0;
    }
  }

  /** After a cut, skip the continuation bytes (10xxxxxx) of a character whose start was dropped. */
  private alignStart(): void {
    for (let i = 0; i < 3 && this.size > 0; i++) {
      const block = this.blocks[this.head]!;
      if (!isContinuation(block[this.start]!)) return;
      this.drop(1);
    }
  }
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
