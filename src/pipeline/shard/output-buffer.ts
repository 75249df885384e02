/** Bytes of UTF-8 one UTF-16 code unit can take at most (a surrogate pair is two units for four bytes). */
const MAX_UTF8_PER_UNIT = 3;

const MIN_CAPACITY = 64 * 1024;

/**
 * A shard's output bytes, written as they come into one buffer of its own (never a slice of Node's shared Buffer pool,
 * which must not be transferred): each string is encoded once, straight into it, and each line's own bytes are copied
 * once. A buffer per line copied into the body at the end touched every output byte's memory twice, and the first touch
 * of fresh memory (a page fault) cost more than the copy. Room is reserved up front from the input's size: pages never
 * written are never committed.
 */
export class OutputBuffer {
  private buffer: Buffer;
  private used = 0;

  constructor(capacity = 0) {
    this.buffer = Buffer.allocUnsafeSlow(Math.max(capacity, MIN_CAPACITY));
  }

  get length(): number {
    return this.used;
  }

  write(chunk: string | Uint8Array): void {
    if (typeof chunk !== 'string') {
      this.reserve(chunk.byteLength);
      this.buffer.set(chunk, this.used);
      this.used += chunk.byteLength;
      return;
    }
    if (this.buffer.length - this.used < chunk.length * MAX_UTF8_PER_UNIT) this.reserve(Buffer.byteLength(chunk, 'utf8'));
    this.used += this.buffer.write(chunk, this.used, 'utf8');
  }

  /** The bytes written: a view of the buffer, whose ArrayBuffer is this output's alone (it may be transferred). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  private reserve(n: number): void {
    if (this.buffer.length - this.used >= n) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.used + n));
    this.buffer.copy(next, 0, 0, this.used);
    this.buffer = next;
  }
}
