import { isSourceSummary, recordedCall } from '../model/recorded.js';
import type { Transcript } from '../model/transcript.js';
import { messageTokens } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { type AbsorbedMentions, absorbedFileMentions } from './file-mentions.js';
import { median } from './billing/quantile.js';
import { asSent } from './sent-tool-output.js';
import { unreplayableReason } from './unreplayable.js';
import { type RecordedUsage, recordedUsage } from './billing/recorded-usage.js';
import { type TokenScale, type TokenScaleMeasure, type UnloggedSpan, measureTokenScale } from './billing/token-ratio.js';

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
  // counts (see basePromptAtScale).
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
 * measuredBasePrompt's tokens as counted at a scale given later: the measure is taken once, with `tokenizer`, noting
 * each count it takes of a non-empty text. A scaled counter counts each such text on its own (scaledTokenizer), so the
 * measure at any scale is this one less what the noted counts grow by there, without reading the transcript again.
 */
function basePromptAtScale(transcript: Transcript, recorded: RecordedUsage, tokenizer: Tokenizer): (scale: TokenScale) => number {
  const counts: number[] = [];
  // A tokenizer of its own, not `tokenizer`: the count memo (messageTokens) holds no message for it, so no count is missed.
  const noting: Tokenizer = {
    name: tokenizer.name,
    engine: tokenizer.engine,
    count(text) {
      const n = tokenizer.count(text);
      if (text !== '') counts.push(n);
      return n;
    },
  };
  const mentions = absorbedFileMentions(transcript, noting);
  const beyond = beyondFirstPrompt(transcript, recorded, noting, mentions?.spans ?? []);
  return (scale) => {
    let growth = 0;
    for (const c of counts) growth += Math.round(c * scale.ratio + scale.framing) - c;
    return Math.max(0, beyond - growth);
  };
}

/**
 * The base prompt of each group of sessions with per-call records, measured in the archive's first pass (beside its
 * token scale) as the replay measures each one's own: the median, by basePromptGroup. A session whose source records
 * only its totals has no first call to measure its own on; it takes its group's. Under `tokenRatio: 'recorded'` a
 * session too short for a scale of its own is counted at the archive's, known only when the pass is over.
 */
export class ArchiveBasePrompts {
  /** By group, in input order: each session's measure, and its own scale (none: the archive's). */
  private readonly measured = new Map<string, { at: (scale: TokenScale) => number; scale: TokenScale | undefined }[]>();

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
    const sessions = this.measured.get(group) ?? [];
    this.measured.set(group, sessions);
    // The replay measures the scale on the transcript as sent, which is the one read unless its tool output was trimmed.
    const scale =
      this.tokenRatio !== 'recorded'
        ? { ratio: this.tokenRatio, framing: 0 }
        : own && transcript === item.transcript
          ? own.measure
          : measureTokenScale(transcript, this.tokenizer);
    sessions.push({ at: basePromptAtScale(transcript, recorded, this.tokenizer), scale });
  }

  /** The medians, once the pass is over; `tokenScaleFallback`: the archive's token scale it measured. */
  medians(tokenScaleFallback: TokenScale | undefined): Record<string, ArchiveBasePrompt> {
    const archive = tokenScaleFallback ?? { ratio: 1, framing: 0 };
    const out: Record<string, ArchiveBasePrompt> = {};
    for (const [group, sessions] of this.measured) {
      const bases = sessions.map((s) => s.at(s.scale ?? archive));
      out[group] = { tokens: Math.round(median(bases)), sessions: bases.length };
    }
    return out;
  }
}
