import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { compactionRecords } from '../model/recorded.js';

/**
 * A compaction the source made itself (Claude Code's `/compact` or auto-compaction): the span of messages the
 * summary replaced, and the summary. The Claude Code adapter lists them in `metadata.compactions` with the index of the
 * `is_compact_summary` message and of the first message after the `compact_boundary` record.
 */
export interface ReferenceCompaction {
  /** 0-based among the transcript's compactions that have a summary. */
  index: number;
  /** The replaced span is messages[from, to). */
  from: number;
  to: number;
  summary: Message;
  trigger?: string;
  /** The source's own count of the context before compaction (Claude Code `preTokens`, its tokenizer, system prompt included). */
  preTokens?: number;
}

const isIndex = (v: unknown, n: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < n;

/**
 * The source's compactions that can be scored: those with a recorded summary. Each replaced everything the model had
 * since the previous summary (or the start): the span runs from the previous summary (inclusive, it was part of the
 * context then) to the boundary (or to the summary when no boundary was recorded).
 */
export function referenceCompactions(transcript: Transcript): ReferenceCompaction[] {
  const n = transcript.messages.length;
  const out: ReferenceCompaction[] = [];
  let from = 0;
  for (const raw of compactionRecords(transcript)) {
    if (!isIndex(raw.summaryIndex, n)) continue;
    const summaryIndex = raw.summaryIndex;
    const to = isIndex(raw.boundaryIndex, n + 1) && raw.boundaryIndex <= summaryIndex ? raw.boundaryIndex : summaryIndex;
    if (to > from) {
      const ref: ReferenceCompaction = { index: out.length, from, to, summary: transcript.messages[summaryIndex] };
      if (typeof raw.trigger === 'string') ref.trigger = raw.trigger;
      if (typeof raw.preTokens === 'number') ref.preTokens = raw.preTokens;
      out.push(ref);
    }
    from = summaryIndex;
  }
  return out;
}

/** A compaction of the source whose summary is encrypted (Codex): it happened, but what it said cannot be scored. */
export interface OpaqueCompaction {
  /** Index of the point in the transcript (the first message of what the source kept). */
  index: number;
  /** Response items the source kept in place of the history (Codex's replacement history), when recorded. */
  replacementHistoryItems?: number;
}

/** The source's compactions with an encrypted summary (Codex's `compaction` item, alone or in a replacement history). */
export function opaqueCompactions(transcript: Transcript): OpaqueCompaction[] {
  const out: OpaqueCompaction[] = [];
  for (const raw of compactionRecords(transcript)) {
    if ((raw.encrypted !== true && raw.encryptedSummary !== true) || typeof raw.index !== 'number') continue;
    const entry: OpaqueCompaction = { index: raw.index };
    if (typeof raw.replacementHistoryItems === 'number') entry.replacementHistoryItems = raw.replacementHistoryItems;
    out.push(entry);
  }
  return out;
}
