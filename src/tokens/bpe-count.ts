import { o200kPieceEnd } from './o200k-split.js';
import { PairHeap, offsetOfKey, rankOfKey } from './pair-heap.js';
import { PieceCountCache } from './piece-count-cache.js';
import { NO_RANK, type RankTable, hashBytes, rankOf } from './rank-table.js';

/** Above every rank: a pair that is no token never wins the merge. */
const UNMERGEABLE = 0x7fffffff;

/**
 * Pieces longer than this (in bytes) merge with a heap: the plain loop scans every pair for each merge, which is
 * quadratic and never ends on a long run of one character, but is faster on the short pieces that make up ordinary
 * text.
 */
export const HEAP_MERGE_BYTES = 128;

/**
 * Counts the tokens of a text as ordinary text without building the token ids: splits it into pieces (the
 * hand-written o200k splitter, or a split regex), writes each piece's UTF-8 into one scratch buffer, and counts one
 * token for a piece that is a token, a cached count for a piece seen before, else runs the BPE merges (lowest rank
 * first, leftmost among equals, as tiktoken does) and counts what is left.
 */
export class BpeCounter {
  private utf8 = new Uint8Array(4096);
  private partStarts = new Int32Array(4097);
  private pairRanks = new Int32Array(4096);
  private readonly cache = new PieceCountCache();
  /** The heap merge's linked list of parts, indexed by a part's start: the next part's start and the previous one's. */
  private nextPart = new Int32Array(0);
  private prevPart = new Int32Array(0);
  private readonly heap = new PairHeap();
  /** Whether the last {@link encodeUtf8} wrote U+FFFD for a lone surrogate. */
  private replacedSurrogate = false;
  /** {@link hashBytes} of what the last {@link encodeUtf8} wrote. */
  private hash = 0;

  /**
   * `splitRegex` (with the `g` flag) for encodings other than o200k_base; null uses the o200k splitter. `heapMergeBytes`
   * is there for tests, to compare both merge loops on the same pieces.
   */
  constructor(
    private readonly table: RankTable,
    private readonly splitRegex: RegExp | null,
    private readonly heapMergeBytes = HEAP_MERGE_BYTES,
  ) {}

  count(text: string): number {
    const n = text.length;
    let tokens = 0;
    const regex = this.splitRegex;
    if (regex === null) {
      for (let i = 0; i < n;) {
        const end = o200kPieceEnd(text, i);
        // One ASCII character is always one token: most punctuation and spaces between words.
        tokens += end - i === 1 && text.charCodeAt(i) < 0x80 ? 1 : this.countPiece(text, i, end);
        i = end;
      }
      return tokens;
    }
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m !== null; m = regex.exec(text)) tokens += this.countPiece(text, m.index, m.index + m[0].length);
    return tokens;
  }

  private countPiece(text: string, start: number, end: number): number {
    const length = this.encodeUtf8(text, start, end);
    const buf = this.utf8;
    const { table } = this;
    if (length === 1) return 1;
    const hash = this.hash;
    // gpt-tokenizer looks the piece's own string up first, which a piece with a lone surrogate never matches (a token
    // holds U+FFFD, never a lone surrogate): such a piece goes through the merges whatever its bytes.
    if (!this.replacedSurrogate) {
      if (length === 2 && table.pairRanks[(buf[0] << 8) | buf[1]] !== NO_RANK) return 1;
      if (length > 2 && rankOf(table, buf, 0, length, hash) !== NO_RANK) return 1;
    }
    const cached = this.cache.get(buf, length, hash);
    if (cached >= 0) return cached;
    const count = length > this.heapMergeBytes ? this.heapMerge(length) : this.merge(length);
    this.cache.set(buf, length, hash, count);
    return count;
  }

  /** UTF-8 of text[start, end) into the scratch buffer, as TextEncoder writes it (a lone surrogate as U+FFFD). */
  private encodeUtf8(text: string, start: number, end: number): number {
    if ((end - start) * 3 > this.utf8.length) this.grow((end - start) * 3);
    const buf = this.utf8;
    let o = 0;
    this.replacedSurrogate = false;
    let i = start;
    // Pure ASCII, the usual piece, is hashed as it is copied; anything else is hashed once written.
    let h = 0x811c9dc5;
    for (let c = 0; i < end && (c = text.charCodeAt(i)) < 0x80; i++) {
      buf[o++] = c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (i === end) {
      this.hash = h >>> 0;
      return o;
    }
    for (; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) buf[o++] = c;
      else if (c < 0x800) {
        buf[o++] = 0xc0 | (c >> 6);
        buf[o++] = 0x80 | (c & 0x3f);
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = i + 1 < end ? text.charCodeAt(i + 1) : 0;
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
            i++;
            buf[o++] = 0xf0 | (cp >> 18);
            buf[o++] = 0x80 | ((cp >> 12) & 0x3f);
            buf[o++] = 0x80 | ((cp >> 6) & 0x3f);
            buf[o++] = 0x80 | (cp & 0x3f);
            continue;
          }
          c = 0xfffd;
          this.replacedSurrogate = true;
        }
        buf[o++] = 0xe0 | (c >> 12);
        buf[o++] = 0x80 | ((c >> 6) & 0x3f);
        buf[o++] = 0x80 | (c & 0x3f);
      }
    }
    this.hash = hashBytes(buf, 0, o);
    return o;
  }

  private grow(bytes: number): void {
    this.utf8 = new Uint8Array(bytes);
    this.partStarts = new Int32Array(bytes + 1);
    this.pairRanks = new Int32Array(bytes);
  }

  /**
   * The rank of utf8[from, to) as gpt-tokenizer finds it, or {@link UNMERGEABLE}: it decodes a range that is valid
   * UTF-8 with a TextDecoder, which drops a leading byte-order mark, and looks the rest up.
   */
  private rank(from: number, to: number, length: number): number {
    const buf = this.utf8;
    if (to - from === 2) {
      const rank = this.table.pairRanks[(buf[from] << 8) | buf[from + 1]];
      return rank === NO_RANK ? UNMERGEABLE : rank;
    }
    // The buffer is valid UTF-8, so a range of it is valid when it ends on a character boundary (a BOM starts one).
    if (buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf && (to === length || (buf[to] & 0xc0) !== 0x80)) {
      from += 3;
      if (from === to) return UNMERGEABLE;
    }
    const rank = rankOf(this.table, buf, from, to, hashBytes(buf, from, to));
    return rank === NO_RANK ? UNMERGEABLE : rank;
  }

  /** The number of tokens BPE leaves of utf8[0, length). */
  private merge(length: number): number {
    const starts = this.partStarts;
    const ranks = this.pairRanks;
    const buf = this.utf8;
    const pairs = this.table.pairRanks;
    // parts: starts[0..parts) with starts[parts] = length; ranks[i] is the rank of parts i and i + 1 merged.
    let parts = length;
    for (let i = 0; i <= length; i++) starts[i] = i;
    for (let i = 0; i < length - 1; i++) {
      const r = pairs[(buf[i] << 8) | buf[i + 1]];
      ranks[i] = r === NO_RANK ? UNMERGEABLE : r;
    }
    while (parts > 1) {
      let best = UNMERGEABLE;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (ranks[i] < best) {
          best = ranks[i];
          at = i;
        }
      }
      if (at < 0) break;
      starts.copyWithin(at + 1, at + 2, parts + 1);
      ranks.copyWithin(at + 1, at + 2, parts - 1);
      parts--;
      ranks[at] = at + 1 < parts ? this.rank(starts[at], starts[at + 2], length) : UNMERGEABLE;
      if (at > 0) ranks[at - 1] = this.rank(starts[at - 1], starts[at + 1], length);
    }
    return parts;
  }

  /**
   * What {@link merge} returns, in O(n log n): the parts form a linked list indexed by their start, and a heap holds
   * (rank, start) of each adjacent pair, and ranks[start] the current rank of the pair a part starts. A pair that a
   * merge changed stays in the heap and is skipped when popped: it is current only while its part still starts there,
   * has a next part, and its current rank is the popped one.
   */
  private heapMerge(length: number): number {
    if (this.nextPart.length < length) {
      this.nextPart = new Int32Array(length);
      this.prevPart = new Int32Array(length);
    }
    const next = this.nextPart;
    const prev = this.prevPart;
    const ranks = this.pairRanks;
    const buf = this.utf8;
    const pairs = this.table.pairRanks;
    const heap = this.heap;
    // Room for the first pairs; each merge pushes up to two more. A part that is no longer a start has prev = -2.
    heap.reset(length);
    for (let i = 0; i < length; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      const r = i + 1 < length ? pairs[(buf[i] << 8) | buf[i + 1]] : NO_RANK;
      ranks[i] = r === NO_RANK ? UNMERGEABLE : r;
      if (r !== NO_RANK) heap.push(r, i);
    }
    let parts = length;
    while (heap.size > 0) {
      const key = heap.pop();
      const at = offsetOfKey(key);
      const right = next[at];
      if (prev[at] === -2 || right >= length) continue;
      if (ranks[at] !== rankOfKey(key)) continue;
      const end = next[right];
      next[at] = end;
      prev[right] = -2;
      if (end < length) prev[end] = at;
      parts--;
      ranks[at] = end < length ? this.rank(at, next[end], length) : UNMERGEABLE;
      if (ranks[at] !== UNMERGEABLE) heap.push(ranks[at], at);
      const before = prev[at];
      if (before >= 0) {
        ranks[before] = this.rank(before, end, length);
        if (ranks[before] !== UNMERGEABLE) heap.push(ranks[before], before);
      }
    }
    return parts;
  }
}
