/** Slots of the table: a power of two, at least twice {@link MAX_ENTRIES}. */
const SLOTS = 1 << 15;
/** Entries before the cache starts over: keeps the table at most half full, so a probe ends soon. */
const MAX_ENTRIES = SLOTS >> 1;
/** Characters the fingerprint reads: the first and last few and some spread evenly between. */
const EDGE_CHARS = 8;
const SPREAD_CHARS = 32;
/**
 * Cached texts of one fingerprint a lookup compares at most: texts that share their length and every sampled character
 * (a file read again after an edit that kept its length) cost a bounded number of comparisons, not one per cached text.
 */
const MAX_SAME_FINGERPRINT = 4;

/**
 * The length of a text of {@link TextCountCache.MIN_LENGTH}+ characters and some of its characters, mixed: read in a
 * time that does not grow with the text. Equal texts have equal fingerprints; unequal ones seldom do.
 */
export function fingerprint(text: string): number {
  const n = text.length;
  let h = Math.imul(n ^ 0x811c9dc5, 0x01000193);
  for (let i = 0; i < EDGE_CHARS; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = n - EDGE_CHARS; i < n; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const step = (n - 2 * EDGE_CHARS) / (SPREAD_CHARS + 1);
  for (let k = 1; k <= SPREAD_CHARS; k++) h = Math.imul(h ^ text.charCodeAt(EDGE_CHARS + Math.floor(k * step)), 0x01000193);
  return h ^ (h >>> 15);
}

/**
 * Text -> token count for long texts, found by a fingerprint and confirmed by comparing the text. A Map keyed by the
 * text hashes every character of every text looked up, which on real text (where almost no long text repeats) costs
 * more than the hits save; a fingerprint reads a few dozen characters, and only a text with a cached one's
 * fingerprint is compared in full, which a repeat needs anyway and which stops at the first difference otherwise.
 * When full (in entries or in characters, as the texts are kept alive) it starts over empty, which bounds its memory
 * and keeps the texts at hand.
 */
export class TextCountCache {
  private readonly fingerprints = new Int32Array(SLOTS);
  private readonly counts = new Int32Array(SLOTS);
  private readonly texts: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
  private entries = 0;
  private chars = 0;
  /** Where {@link set} puts the text the last {@link get} missed, and whether a cached text is there. */
  private free = -1;
  private replacing = false;
  /** The slots of the texts a lookup compared, and which of them the next replacement takes. */
  private readonly sameSlots = new Int32Array(MAX_SAME_FINGERPRINT);
  private turn = 0;

  /** The shortest text this cache takes: its fingerprint reads that many characters or fewer. */
  static readonly MIN_LENGTH = 2 * EDGE_CHARS + SPREAD_CHARS;

  constructor(private readonly maxChars: number) {}

  /** The count cached for `text` ({@link MIN_LENGTH}+ characters), or -1; then {@link set} may store it. */
  get(text: string): number {
    const fp = fingerprint(text);
    const slot = this.probe(text, fp);
    if (slot >= 0) return this.counts[slot];
    this.fingerprints[this.free] = fp;
    return -1;
  }

  /** Stores the count of the `text` the last {@link get} missed. */
  set(text: string, count: number): void {
    if (this.replacing) {
      this.chars -= this.texts[this.free]!.length;
      this.entries--;
    }
    if (this.entries === MAX_ENTRIES || this.chars + text.length > this.maxChars) {
      const fp = this.fingerprints[this.free];
      this.clear();
      // The slot get() chose is not the text's first free one in an empty table.
      this.probe(text, fp);
      this.fingerprints[this.free] = fp;
    }
    this.texts[this.free] = text;
    this.counts[this.free] = count;
    this.entries++;
    this.chars += text.length;
  }

  /** The slot that holds `text`, or -1 with {@link free} set to where it goes. */
  private probe(text: string, fp: number): number {
    const { fingerprints, texts } = this;
    const mask = SLOTS - 1;
    let same = 0;
    for (let slot = fp & mask; ; slot = (slot + 1) & mask) {
      const cached = texts[slot];
      if (cached === undefined) {
        this.free = slot;
        this.replacing = false;
        return -1;
      }
      if (fingerprints[slot] !== fp) continue;
      if (cached === text) return slot;
      this.sameSlots[same++] = slot;
      if (same === MAX_SAME_FINGERPRINT) {
        // One of them is replaced, in turn, rather than added to: a lookup never compares more than this many texts.
        this.free = this.sameSlots[this.turn++ % MAX_SAME_FINGERPRINT];
        this.replacing = true;
        return -1;
      }
    }
  }

  private clear(): void {
    this.texts.fill(undefined);
    this.entries = 0;
    this.chars = 0;
  }
}
