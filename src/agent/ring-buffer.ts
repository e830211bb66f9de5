/** Keeps the last `maxBytes` of a text stream, cut at line starts when it can. */
export class TextRing {
  private chunks: string[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024) {}

  push(text: string): void {
    this.chunks.push(text);
    this.bytes += text.length;
    while (this.bytes > this.maxBytes && this.chunks.length > 1) this.bytes -= this.chunks.shift()!.length;
    if (this.bytes > this.maxBytes) {
      const only = this.chunks[0]!;
      this.chunks[0] = only.slice(only.length - this.maxBytes);
      this.bytes = this.chunks[0].length;
    }
  }

  text(): string {
    return this.chunks.join("");
  }

  /** The last `n` non-empty lines. */
  lastLines(n: number): string[] {
    return this.text()
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "")
      .slice(-n);
  }
}
