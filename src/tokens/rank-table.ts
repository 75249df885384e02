/**
 * A BPE rank table keyed by token bytes, in typed arrays: the bytes of every token back to back, where each starts,
 * and an open-addressing hash from bytes to rank. Tokens of one and two bytes (every first merge) are also indexed
 * directly. Looking a byte range up allocates nothing.
 */
export interface RankTable {
  /** Every token's bytes, in rank order. */
  readonly bytes: Uint8Array;
  /** Rank r's bytes are bytes[starts[r], starts[r + 1]). */
  readonly starts: Uint32Array;
  /** rank + 1 at the slot of a token's hash (and the slots after it, linear probing); 0 is empty. */
  readonly slots: Int32Array;
  /** The rank of each single byte. */
  readonly byteRanks: Int32Array;
  /** The rank of each two-byte token at (first << 8) | second; -1 where none. */
  readonly pairRanks: Int32Array;
}

export const NO_RANK = -1;

/** FNV-1a over a byte range; the piece cache hashes the same way so a piece is hashed once. */
export function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** The rank of buf[start, end) given its hash, or {@link NO_RANK}. */
export function rankOf(table: RankTable, buf: Uint8Array, start: number, end: number, hash: number): number {
  const { slots, starts, bytes } = table;
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot];
    if (entry === 0) return NO_RANK;
    const rank = entry - 1;
    const from = starts[rank];
    if (starts[rank + 1] - from !== length) continue;
    let i = 0;
    while (i < length && bytes[from + i] === buf[start + i]) i++;
    if (i === length) return rank;
  }
}

/**
 * The table of a rank array as gpt-tokenizer ships it: index = rank; a string where the token's bytes are UTF-8, else
 * the byte values. gpt-tokenizer looks any byte range that is valid UTF-8 up by its decoded string only, so a token
 * given as bytes that happen to be valid UTF-8 (most start with a byte-order mark) is never found by it: such tokens
 * are left out, so that this table finds exactly what gpt-tokenizer finds.
 */
export function buildRankTable(ranks: readonly (string | readonly number[] | undefined)[]): RankTable {
  const encoder = new TextEncoder();
  const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const isUtf8 = (token: readonly number[]): boolean => {
    try {
      strictDecoder.decode(Uint8Array.from(token));
      return true;
    } catch {
      return false;
    }
  };
  let bytes = new Uint8Array(ranks.length * 8);
  const starts = new Uint32Array(ranks.length + 1);
  let used = 0;
  for (let rank = 0; rank < ranks.length; rank++) {
    const token = ranks[rank];
    // A string token is at most 3 bytes per UTF-16 code unit.
    const room = token === undefined ? 0 : typeof token === 'string' ? token.length * 3 : token.length;
    if (used + room > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, used + room));
      grown.set(bytes.subarray(0, used));
      bytes = grown;
    }
    if (typeof token === 'string') used += encoder.encodeInto(token, bytes.subarray(used)).written;
    else if (token !== undefined && !isUtf8(token)) {
      bytes.set(token, used);
      used += token.length;
    }
    starts[rank + 1] = used;
  }
  return indexRankTable(bytes.slice(0, used), starts);
}

/** The hash slots and direct indexes of token bytes laid out by rank. */
export function indexRankTable(bytes: Uint8Array, starts: Uint32Array): RankTable {
  const count = starts.length - 1;
  let capacity = 1;
  while (capacity < count * 2.5) capacity <<= 1;
  const slots = new Int32Array(capacity);
  const byteRanks = new Int32Array(256).fill(NO_RANK);
  const pairRanks = new Int32Array(65536).fill(NO_RANK);
  const mask = capacity - 1;
  for (let rank = 0; rank < count; rank++) {
    const from = starts[rank];
    const to = starts[rank + 1];
    if (to === from) continue;
    if (to - from === 1) byteRanks[bytes[from]] = rank;
    else if (to - from === 2) pairRanks[(bytes[from] << 8) | bytes[from + 1]] = rank;
    let slot = hashBytes(bytes, from, to) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = rank + 1;
  }
  for (let b = 0; b < 256; b++) if (byteRanks[b] === NO_RANK) throw new Error(`rank table: byte ${b} has no token`);
  return { bytes, starts, slots, byteRanks, pairRanks };
}
