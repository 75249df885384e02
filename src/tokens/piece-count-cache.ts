/**
 * Piece bytes -> token count, in typed arrays: a repeated piece (a word, an identifier, an indentation run) skips the
 * merge loop, and neither a lookup nor an insert allocates. When full it starts over empty, which bounds its memory
 * (about 3.5 MB) and keeps the pieces of the text at hand.
 */
export class PieceCountCache {
  private readonly slots = new Int32Array(1 << 17);
  private readonly hashes = new Uint32Array(1 << 16);
  private readonly keyStarts = new Uint32Array(1 << 16);
  private readonly keyLengths = new Uint32Array(1 << 16);
  private readonly counts = new Uint32Array(1 << 16);
  private readonly keys = new Uint8Array(2 * 1024 * 1024);
  private entries = 0;
  private keyBytes = 0;

  /** The longest piece worth keeping: longer ones seldom repeat verbatim and would crowd the others out. */
  static readonly MAX_PIECE_BYTES = 1024;

  /** The count stored for buf[0, length) with that hash, or -1. */
  get(buf: Uint8Array, length: number, hash: number): number {
    const { slots, hashes, keyStarts, keyLengths, keys } = this;
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] - 1;
      if (entry < 0) return -1;
      if (hashes[entry] !== hash || keyLengths[entry] !== length) continue;
      const from = keyStarts[entry];
      let i = 0;
      while (i < length && keys[from + i] === buf[i]) i++;
      if (i === length) return this.counts[entry];
    }
  }

  /** Remembers the count of buf[0, length) (absent: {@link get} returned -1 for it). */
  set(buf: Uint8Array, length: number, hash: number, count: number): void {
    if (length > PieceCountCache.MAX_PIECE_BYTES) return;
    if (this.entries === this.hashes.length || this.keyBytes + length > this.keys.length) {
      this.slots.fill(0);
      this.entries = 0;
      this.keyBytes = 0;
    }
    const entry = this.entries++;
    this.hashes[entry] = hash;
    this.keyStarts[entry] = this.keyBytes;
    this.keyLengths[entry] = length;
    this.counts[entry] = count;
    // Copied byte by byte: `keys.set(buf.subarray(...))` allocated a view per stored piece, most of them a few bytes.
    const { keys } = this;
    for (let i = 0, at = this.keyBytes; i < length; i++, at++) keys[at] = buf[i];
    this.keyBytes += length;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }
}
