/**
 * The node client decodes Neovim's messages with @msgpack/msgpack's stream decoder, which joins
 * each new chunk to all the unread bytes before it: a message that spans many reads is copied
 * again with each one. Neovim 0.12 writes a large answer in pieces of a few KB, so a 450 KB
 * buffer read arrived in ~80 reads and cost ~19 MB of copying (each copy a fresh, zeroed array),
 * milliseconds of the host's time on every big read. Here the unread bytes grow in place instead:
 * a store with room to spare, new bytes copied once behind them, doubled when full.
 *
 * Bytes already handed out (a `bin` value is a view into the buffer) are never written over:
 * only the store's unused tail is written, and a full store is replaced, not reused.
 */

/** The decoder's fields this touches (its own names, @msgpack/msgpack 3.x). */
interface StreamDecoder {
  bytes: Uint8Array;
  pos: number;
  headByte: number;
  hasRemaining(size: number): boolean;
  setBuffer(buffer: Uint8Array): void;
  appendBuffer(buffer: ArrayLike<number> | ArrayBufferLike | ArrayBufferView): void;
}

/** The decoder's "no message begun" mark. */
const HEAD_BYTE_REQUIRED = -1;
const MIN_STORE = 64 << 10;
const stores = new WeakMap<StreamDecoder, { store: Uint8Array; end: number }>();

/** A chunk as bytes, as the library's own ensureUint8Array takes it. */
function bytesOf(chunk: ArrayLike<number> | ArrayBufferLike | ArrayBufferView): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && chunk instanceof SharedArrayBuffer))
    return new Uint8Array(chunk);
  return Uint8Array.from(chunk as ArrayLike<number>);
}

export function appendInPlace(this: StreamDecoder, chunk: ArrayLike<number> | ArrayBufferLike | ArrayBufferView): void {
  const add = bytesOf(chunk);
  // Nothing unread: the chunk itself is the buffer (no copy), as the library does.
  if (this.headByte === HEAD_BYTE_REQUIRED && !this.hasRemaining(1)) return this.setBuffer(add);
  const rest = this.bytes.subarray(this.pos);
  const s = stores.get(this);
  const atEnd =
    s !== undefined &&
    rest.buffer === s.store.buffer &&
    rest.byteOffset + rest.byteLength === s.store.byteOffset + s.end;
  if (atEnd && s.store.byteLength - s.end >= add.byteLength) {
    s.store.set(add, s.end);
    s.end += add.byteLength;
    return this.setBuffer(s.store.subarray(s.end - rest.byteLength - add.byteLength, s.end));
  }
  const need = rest.byteLength + add.byteLength;
  // Not zeroed (every byte handed out is written first), a plain Uint8Array as the library's own.
  const size = Math.max(MIN_STORE, need * 2);
  const store = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
  store.set(rest, 0);
  store.set(add, rest.byteLength);
  stores.set(this, { store, end: need });
  this.setBuffer(store.subarray(0, need));
}

/**
 * Give the decoder class this append (its prototype's `appendBuffer`). A decoder without the
 * methods it relies on (another version of the library) is left as it is: slower, not broken.
 */
export function growUnreadInPlace(decoder: { prototype: object }): boolean {
  const p = decoder.prototype as Partial<StreamDecoder>;
  if (typeof p.appendBuffer !== "function" || typeof p.setBuffer !== "function" || typeof p.hasRemaining !== "function")
    return false;
  p.appendBuffer = appendInPlace;
  return true;
}
