import { contentText } from '../model/content.js';
import { type Message, isTool } from '../model/message.js';
import { contentBlocks } from '../provider/cache-rules.js';
import { isCompactedResult } from '../strategies/_placeholders.js';
import { type KeepOptions, protectedRange } from '../strategies/boundaries.js';
import { countMessage, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';

/** Tool results at most this large are left whole by mask-observations (its `minBytes`). */
const MASKED_ABOVE_BYTES = 800;
/** About what a masked result's placeholder holds, in tokens: what masking a result does not free. */
const PLACEHOLDER_TOKENS = 20;

/** What an edit of the prompt would free, and where it would start. */
export interface EditEstimate {
  /** Tokens the edit would remove. */
  freed: number;
  /** Tokens from the first message it would change to the end of the prompt. */
  after: number;
  /** Content blocks from the first message it would change to the end of the prompt. */
  blocksAfter: number;
  /** Tokens of the whole prompt's messages. */
  total: number;
}

/**
 * A running account of the prompt a manager sees, kept across checks so a check counts only the messages that are new
 * since the last one: each message's tokens (prefix sums) and the tool results an edit could mask, from the frozen
 * boundary of the last edit on. Messages before the boundary never change again: an edit masks what lies between the
 * boundary and the protected tail.
 */
export class EditLedger {
  private messages: readonly Message[] = [];
  private first: Message | undefined;
  private last: Message | undefined;
  /** cum[i]: tokens of messages [0, i). */
  private cum: number[] = [0];
  /** blocks[i]: content blocks of messages [0, i). */
  private blocks: number[] = [0];
  /** Indices of the results an edit could mask, in order, with what masking each frees. */
  private maskable: { index: number; freed: number }[] = [];
  /** freedBefore[k]: what masking maskable[0..k) frees. */
  private freedBefore: number[] = [0];
  /** Messages [0, boundary) are frozen. */
  private boundary = 0;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly tail: KeepOptions,
  ) {}

  /** Takes the prompt about to be sent: counts what is new, or everything when the caller changed earlier messages. */
  observe(messages: readonly Message[]): void {
    const seen = this.cum.length - 1;
    // The caller may grow the very array it was given: what was seen is known by count and by its first and last objects.
    const extendsSeen = messages.length >= seen && (seen === 0 || (messages[0] === this.first && messages[seen - 1] === this.last));
    if (!extendsSeen) this.reset(0);
    for (let i = extendsSeen ? seen : 0; i < messages.length; i++) this.add(messages[i], i);
    this.messages = messages;
    this.first = messages[0];
    this.last = messages[messages.length - 1];
  }

  /** Leading messages of the last prompt seen that no edit changes again (a full compaction aside). */
  get frozen(): number {
    return Math.min(this.boundary, this.cum.length - 1);
  }

  /** What masking everything maskable between the boundary and the protected tail would do, or undefined when nothing is. */
  estimate(): EditEstimate | undefined {
    const { tailStart } = protectedRange(this.messages, this.tail);
    const from = lowerBound(this.maskable, this.boundary);
    const to = lowerBound(this.maskable, tailStart);
    if (to <= from) return undefined;
    const freed = this.freedBefore[to] - this.freedBefore[from];
    if (freed <= 0) return undefined;
    const first = this.maskable[from].index;
    const n = this.cum.length - 1;
    return { freed, after: this.cum[n] - this.cum[first], blocksAfter: this.blocks[n] - this.blocks[first], total: this.cum[n] };
  }

  /** The prompt was edited: it is now `messages`, frozen up to the protected tail (or up to `frozen`, after a compaction). */
  edited(messages: readonly Message[], frozen?: number): void {
    this.reset(frozen ?? protectedRange(messages, this.tail).tailStart);
    this.observe(messages);
  }

  private reset(boundary: number): void {
    this.messages = [];
    this.first = undefined;
    this.last = undefined;
    this.cum = [0];
    this.blocks = [0];
    this.maskable = [];
    this.freedBefore = [0];
    this.boundary = boundary;
  }

  private add(m: Message, i: number): void {
    const tokens = totalOf(countMessage(m, this.tokenizer));
    this.cum.push(this.cum[i] + tokens);
    this.blocks.push(this.blocks[i] + contentBlocks(m));
    if (!isTool(m) || tokens <= PLACEHOLDER_TOKENS) return;
    const text = contentText(m.content);
    if (isCompactedResult(text) || Buffer.byteLength(text, 'utf8') <= MASKED_ABOVE_BYTES) return;
    this.maskable.push({ index: i, freed: tokens - PLACEHOLDER_TOKENS });
    this.freedBefore.push(this.freedBefore[this.freedBefore.length - 1] + tokens - PLACEHOLDER_TOKENS);
  }
}

/** The first entry whose index is at least `index`. */
function lowerBound(entries: readonly { index: number }[], index: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].index < index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
