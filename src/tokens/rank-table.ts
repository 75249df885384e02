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
  /** The buffer every array above views. */
  readonly shared: SharedRankTable;
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

/**
 * A rank table's memory, one SharedArrayBuffer: a thread hands it to the worker threads it starts, which then view it
 * instead of loading and indexing the ranks again (structured cloning shares a SharedArrayBuffer, never copies it).
 */
export interface SharedRankTable {
  readonly buffer: SharedArrayBuffer;
  readonly tokens: number;
  readonly slotCount: number;
  readonly byteCount: number;
}

/** Int32 units before the token bytes: byte ranks, pair ranks, token starts, hash slots. */
function int32Units(tokens: number, slotCount: number): number {
  return 256 + 65536 + (tokens + 1) + slotCount;
}

/** The size of a shared table's buffer. */
export function sharedRankTableBytes(tokens: number, slotCount: number, byteCount: number): number {
  return int32Units(tokens, slotCount) * 4 + byteCount;
}

/** The typed-array views of a shared table. */
export function viewRankTable(shared: SharedRankTable): RankTable {
  const { buffer, tokens, slotCount, byteCount } = shared;
  let at = 0;
  const view = <T>(make: (offset: number) => T, units: number): T => {
    const out = make(at);
    at += units * 4;
    return out;
  };
  const byteRanks = view((o) => new Int32Array(buffer, o, 256), 256);
  const pairRanks = view((o) => new Int32Array(buffer, o, 65536), 65536);
  const starts = view((o) => new Uint32Array(buffer, o, tokens + 1), tokens + 1);
  const slots = view((o) => new Int32Array(buffer, o, slotCount), slotCount);
  const bytes = new Uint8Array(buffer, at, byteCount);
  return { bytes, starts, slots, byteRanks, pairRanks, shared };
}

/** The hash slots and direct indexes of token bytes laid out by rank, in one shared buffer. */
export function indexRankTable(tokenBytes: Uint8Array, tokenStarts: Uint32Array): RankTable {
  const tokens = tokenStarts.length - 1;
  let slotCount = 1;
  while (slotCount < tokens * 2.5) slotCount <<= 1;
  const buffer = new SharedArrayBuffer(sharedRankTableBytes(tokens, slotCount, tokenBytes.length));
  const table = viewRankTable({ buffer, tokens, slotCount, byteCount: tokenBytes.length });
  const { bytes, starts, slots, byteRanks, pairRanks } = table;
  bytes.set(tokenBytes);
  starts.set(tokenStarts);
  byteRanks.fill(NO_RANK);
  pairRanks.fill(NO_RANK);
  const mask = slotCount - 1;
  for (let rank = 0; rank < tokens; rank++) {
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
  return table;
}
