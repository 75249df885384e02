import { isSourceSummary, recordedCall } from '../model/recorded.js';
import type { Transcript } from '../model/transcript.js';
import { messageTokens } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { type AbsorbedMentions, absorbedFileMentions } from './file-mentions.js';
import { median } from './billing/quantile.js';
import { asSent } from './sent-tool-output.js';
import { unreplayableReason } from './unreplayable.js';
import { type RecordedUsage, recordedUsage } from './billing/recorded-usage.js';
import { type TokenScale, type TokenScaleMeasure, type UnloggedSpan, measureTokenScale, scaledCounter } from './billing/token-ratio.js';

/** The archive's base prompt of one agent: the median of its sessions' own, and how many sessions measured it. */
export interface ArchiveBasePrompt {
  tokens: number;
  sessions: number;
}

/** A session's own base prompt, measured on its record, and the `@file` contents of its first prompt measured apart. */
export interface MeasuredBasePrompt {
  tokens: number;
  mentions: AbsorbedMentions | undefined;
}

/**
 * The system prompt and tools a transcript's first recorded call carried beyond what the replay puts in its first
 * prompt (the messages before the first reply and the tool definitions), counted with `tokenizer` (the transcript's
 * provider counter, see billing/token-ratio.ts providerCounter). The `@file` contents of the first prompt are no part
 * of it: the replay carries them as unlogged spans (see file-mentions.ts).
 */
export function measuredBasePrompt(transcript: Transcript, recorded: RecordedUsage, tokenizer: Tokenizer): MeasuredBasePrompt {
  const mentions = absorbedFileMentions(transcript, tokenizer);
  return { tokens: Math.max(0, beyondFirstPrompt(transcript, recorded, tokenizer, mentions?.spans ?? [])), mentions };
}

/** The first recorded call's input less the replayed first prompt and the unlogged content carried in it: may be negative. */
function beyondFirstPrompt(transcript: Transcript, recorded: RecordedUsage, tokenizer: Tokenizer, carried: readonly UnloggedSpan[]): number {
  const first = transcript.messages.findIndex((m) => recordedCall(m) !== undefined);
  const before = transcript.messages.slice(0, first < 0 ? 0 : first).filter((m) => !isSourceSummary(m));
  const unlogged = carried.reduce((n, s) => (s.at < first && s.from <= first && (s.until === undefined || first < s.until) ? n + s.tokens : n), 0);
  // Each message counted on its own, not through the memo: every piece goes through `tokenizer` as often as it
  // counts (see CountLedger).
  let counted = transcript.tools && transcript.tools.length > 0 ? tokenizer.count(JSON.stringify(transcript.tools)) : 0;
  for (const m of before) counted += messageTokens(m, tokenizer);
  return recorded.firstCallInput - counted - unlogged;
}

/**
 * Which sessions share a base prompt: those of one format, and within Cline's format Roo Code's apart (its own system
 * prompt and tools; its reader marks its tasks with `metadata.rooContext`).
 */
export function basePromptGroup(transcript: Transcript, format: string | undefined): string {
  const roo = transcript.metadata?.rooContext;
  return `${format ?? 'unknown'}${roo !== null && typeof roo === 'object' ? '/roo-code' : ''}`;
}

/**
 * A tokenizer that notes each count it gives of a piece of text: a measure taken with it can be had again at a scale
 * known only later, since a scaled counter counts each piece on its own (scaledTokenizer).
 */
class CountLedger implements Tokenizer {
  readonly name: Tokenizer['name'];
  readonly engine: Tokenizer['engine'];
  private readonly counts: number[] = [];

  constructor(private readonly tokenizer: Tokenizer) {
    this.name = tokenizer.name;
    this.engine = tokenizer.engine;
  }

  count(text: string): number {
    const n = this.tokenizer.count(text);
    if (text !== '') this.counts.push(n);
    return n;
  }

  /** What the noted pieces count at `scale` (scaledCounter's), beyond what they counted here. */
  growthAt(scale: TokenScale): number {
    let n = 0;
    for (const c of this.counts) n += Math.round(c * scale.ratio + scale.framing) - c;
    return n;
  }
}

/**
 * The base prompt of each group of sessions with per-call records, measured in the archive's first pass (beside its
 * token scale) as the replay measures each one's own: the median, by basePromptGroup. A session whose source records
 * only its totals has no first call to measure its own on; it takes its group's. Under `tokenRatio: 'recorded'` a
 * session too short for a scale of its own is counted at the archive's, known when the pass is over: its measure is
 * noted piece by piece (CountLedger) and scaled then, so that the pass need not read it again.
 */
export class ArchiveBasePrompts {
  private readonly measured = new Map<string, number[]>();
  private readonly atArchiveScale: { bases: number[]; beyond: number; ledger: CountLedger }[] = [];

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly tokenRatio: number | 'recorded',
  ) {}

  /** One transcript of the pass, in input order; `own`: with `tokenRatio: 'recorded'`, its scale as the pass measured it. */
  add(item: { transcript: Transcript; format?: string }, own?: { measure: TokenScaleMeasure | undefined }): void {
    // A file of usage only holds no first prompt to measure against.
    if (unreplayableReason(item.transcript) !== undefined) return;
    const transcript = asSent(item.transcript);
    const recorded = recordedUsage(transcript);
    if (!recorded) return;
    const group = basePromptGroup(transcript, item.format);
    const bases = this.measured.get(group) ?? [];
    this.measured.set(group, bases);
    if (this.tokenRatio !== 'recorded') {
      bases.push(measuredBasePrompt(transcript, recorded, scaledCounter(this.tokenizer, { ratio: this.tokenRatio, framing: 0 })).tokens);
      return;
    }
    // The replay measures the scale on the transcript as sent, which is the one read unless its tool output was trimmed.
    const scale = own && transcript === item.transcript ? own.measure : measureTokenScale(transcript, this.tokenizer);
    if (scale) {
      bases.push(measuredBasePrompt(transcript, recorded, scaledCounter(this.tokenizer, scale)).tokens);
      return;
    }
    const ledger = new CountLedger(this.tokenizer);
    const mentions = absorbedFileMentions(transcript, ledger);
    this.atArchiveScale.push({ bases, beyond: beyondFirstPrompt(transcript, recorded, ledger, mentions?.spans ?? []), ledger });
  }

  /** The medians, once the pass is over; `tokenScaleFallback`: the archive's token scale it measured. */
  medians(tokenScaleFallback: TokenScale | undefined): Record<string, ArchiveBasePrompt> {
    const scale = tokenScaleFallback ?? { ratio: 1, framing: 0 };
    const late = new Map<number[], number[]>();
    for (const { bases, beyond, ledger } of this.atArchiveScale) {
      const list = late.get(bases) ?? [];
      list.push(Math.max(0, beyond - ledger.growthAt(scale)));
      late.set(bases, list);
    }
    const out: Record<string, ArchiveBasePrompt> = {};
    for (const [group, early] of this.measured) {
      const bases = [...early, ...(late.get(early) ?? [])];
      out[group] = { tokens: Math.round(median(bases)), sessions: bases.length };
    }
    return out;
  }
}
