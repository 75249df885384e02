import { isSourceSummary, recordedCall } from '../model/recorded.js';
import type { Transcript } from '../model/transcript.js';
import { contextTokens } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { absorbedFileMentions } from './file-mentions.js';
import { asSent } from './sent-tool-output.js';
import { unreplayableReason } from './unreplayable.js';
import { type RecordedUsage, recordedUsage } from './billing/recorded-usage.js';
import { type TokenScale, type UnloggedSpan, recordedTokenScale, scaledTokenizer } from './billing/token-ratio.js';

/** The archive's base prompt of one agent: the median of its sessions' own, and how many sessions measured it. */
export interface ArchiveBasePrompt {
  tokens: number;
  sessions: number;
}

/**
 * The system prompt and tools a transcript's first recorded call carried beyond what the replay puts in its first
 * prompt (the messages before the first reply and the tool definitions); 0 without recorded usage.
 */
export function recordedBasePrompt(
  transcript: Transcript,
  recorded: RecordedUsage | undefined,
  tokenizer: Tokenizer,
  carried: readonly UnloggedSpan[],
): number {
  if (!recorded) return 0;
  const first = transcript.messages.findIndex((m) => recordedCall(m) !== undefined);
  const before = transcript.messages.slice(0, first < 0 ? 0 : first).filter((m) => !isSourceSummary(m));
  // The unlogged content the replay carries in the first prompt (the `@file` contents) is no part of the base.
  const unlogged = carried.reduce((n, s) => (s.at < first && s.from <= first && (s.until === undefined || first < s.until) ? n + s.tokens : n), 0);
  return Math.max(0, recorded.firstCallInput - contextTokens(before, transcript.tools, tokenizer) - unlogged);
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
 * The base prompt of each group of sessions with per-call records (a first pass before the replay, as the replay
 * measures each one's own with `tokenRatio` as given): the median, by basePromptGroup. A session whose source records
 * only its totals has no first call to measure its own on; it takes its group's.
 */
export async function archiveBasePrompts(
  items: AsyncIterable<{ transcript: Transcript; format?: string }>,
  tokenizer: Tokenizer,
  o: { tokenRatio: number | 'recorded'; tokenScaleFallback?: TokenScale },
): Promise<Record<string, ArchiveBasePrompt>> {
  const measured = new Map<string, number[]>();
  for await (const item of items) {
    // A file of usage only holds no first prompt to measure against.
    if (unreplayableReason(item.transcript) !== undefined) continue;
    const transcript = asSent(item.transcript);
    const recorded = recordedUsage(transcript);
    if (!recorded) continue;
    const scale = o.tokenRatio === 'recorded' ? recordedTokenScale(transcript, tokenizer, o.tokenScaleFallback) : undefined;
    const ratio = o.tokenRatio === 'recorded' ? (scale?.ratio ?? 1) : o.tokenRatio;
    const framing = scale?.framing ?? 0;
    const counted = ratio === 1 && framing === 0 ? tokenizer : scaledTokenizer(tokenizer, ratio, framing);
    const base = recordedBasePrompt(transcript, recorded, counted, absorbedFileMentions(transcript, counted)?.spans ?? []);
    const group = basePromptGroup(transcript, item.format);
    const list = measured.get(group) ?? [];
    list.push(base);
    measured.set(group, list);
  }
  const out: Record<string, ArchiveBasePrompt> = {};
  for (const [group, bases] of measured) {
    const sorted = [...bases].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 === 1 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
    out[group] = { tokens: median, sessions: sorted.length };
  }
  return out;
}
