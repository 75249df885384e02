import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { type CompactionRecord, compactionRecords } from '../model/recorded.js';

/**
 * A compaction the source made itself, with its summary in the transcript: the span of messages the summary replaced,
 * and the summary. Each reader lists them in `metadata.compactions` with `summaryIndex`, the index of the summary
 * message, and what it knows of the span: Claude Code and OpenCode the first message after the boundary
 * (`boundaryIndex`); pi and Gemini CLI the first of the latest messages they kept beside the summary
 * (`keptFromIndex`). Codex's `compacted` replaced everything before its summary.
 */
export interface ReferenceCompaction {
  /** 0-based among the transcript's compactions that have a summary. */
  index: number;
  /** The replaced span is messages[from, to). */
  from: number;
  to: number;
  /** The summary is messages[summaryIndex]; messages [to, summaryIndex) are those the source kept beside it. */
  summaryIndex: number;
  summary: Message;
  trigger?: string;
  /** The source's own count of the context before compaction (Claude Code `preTokens`, its tokenizer, system prompt included). */
  preTokens?: number;
}

const isIndex = (v: unknown, n: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < n;

/** Where the span a summary replaced ends: the boundary, the first message kept beside the summary, or the summary. */
function spanEnd(raw: CompactionRecord, summaryIndex: number, from: number): number {
  if (isIndex(raw.boundaryIndex, summaryIndex + 1)) return raw.boundaryIndex;
  if (isIndex(raw.keptFromIndex, summaryIndex + 1) && raw.keptFromIndex >= from) return raw.keptFromIndex;
  return summaryIndex;
}

/**
 * The source's compactions that can be scored: those with a recorded summary. Each replaced everything the model had
 * since the previous compaction (or the start) but what it kept beside the summary: the span runs from the previous
 * summary, or the first message kept beside it (inclusive: they were part of the context then), to the boundary, the
 * first message kept, or the summary.
 */
export function referenceCompactions(transcript: Transcript): ReferenceCompaction[] {
  const n = transcript.messages.length;
  const out: ReferenceCompaction[] = [];
  let from = 0;
  for (const raw of compactionRecords(transcript)) {
    if (!isIndex(raw.summaryIndex, n)) continue;
    const summaryIndex = raw.summaryIndex;
    const to = spanEnd(raw, summaryIndex, from);
    if (to > from) {
      const ref: ReferenceCompaction = { index: out.length, from, to, summaryIndex, summary: transcript.messages[summaryIndex] };
      if (typeof raw.trigger === 'string') ref.trigger = raw.trigger;
      if (typeof raw.preTokens === 'number') ref.preTokens = raw.preTokens;
      out.push(ref);
    }
    // What the source kept beside the summary (pi, Gemini CLI) is in the context the next compaction replaces.
    from = raw.boundaryIndex === undefined && to < summaryIndex ? Math.max(from, to) : summaryIndex;
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
