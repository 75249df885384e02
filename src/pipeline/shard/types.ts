import type { Outcome } from '../../errors.js';
import type { InputItem } from '../../formats/types.js';
import type { CompactConfig } from '../../strategies/compact-config.js';
import type { StepReport } from '../../strategies/types.js';
import type { Breakdown } from '../../tokens/breakdown.js';

/**
 * A contiguous byte range of a canonical JSONL archive, made of whole lines. Self-describing: a worker (here or, later,
 * on another machine) needs nothing else to process it, and the `sha256` journaled with it lets a resume prove the
 * bytes did not change.
 */
export interface RangeShard {
  kind: 'range';
  /** Position of the shard in the whole run, in input order; the output is merged in this order. */
  index: number;
  /** The input file, as given on the command line (it is what errors.jsonl names). */
  file: string;
  /** First byte (the start of a line). */
  start: number;
  /** End byte, exclusive (the start of a line, or the end of the file). */
  end: number;
  /** Line number of the line at `start` (1-based). */
  firstLine: number;
  /** Lines in the range, a last line without `\n` included. */
  lines: number;
  /**
   * SHA-256 of the range's bytes, hex. The worker computes it from the bytes it reads (so the input is hashed in the
   * same pass that processes it) and it is journaled with the shard; the planner computes it only for a shard a resume
   * reuses, whose journaled hash it must match.
   */
  sha256?: string;
}

/**
 * A batch of input items (transcripts, errors, skipped records) that an adapter read on the main thread from a
 * non-canonical input (a Claude Code directory, a tau-bench array, a .traj file). `firstItem`/`count` place it in the
 * sequence of items that `readInputs([input])` yields.
 */
export interface ItemsShard {
  kind: 'items';
  index: number;
  /** The input file (as given, or found in a directory that was given). */
  input: string;
  firstItem: number;
  count: number;
  /** Input units (lines or records) the items account for. */
  lines: number;
  /** The input's format, when known (for the report). */
  format?: string;
  /** Characters of text in the transcripts: a size estimate for progress, not a byte count of the input. */
  approxBytes: number;
}

export type ShardDescriptor = RangeShard | ItemsShard;

/** What a worker needs besides the shard: the whole job's settings, the same for every task of a run. */
export interface JobSettings {
  config: CompactConfig;
  /** Hash of `config`: workers cache the built pipeline by it. */
  configHash: string;
  maxLineBytes: number;
}

export interface ShardTask {
  shard: ShardDescriptor;
  /** The items of an `items` shard; absent for a `range` shard, which the worker reads itself. */
  items?: InputItem[];
  job: JobSettings;
  /** 1 for the first try, then 2, 3, 4 on fresh workers after a crash. */
  attempt: number;
}

/** One transcript's report, as the worker measured it. */
export interface TranscriptReport {
  id: string;
  file: string;
  line: number;
  /** The project the transcript records (transcriptProject); absent when none. */
  project?: string;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  before: Breakdown;
  after: Breakdown;
  steps: StepReport[];
}

/** Counts over one shard; summing them over shards in order gives the run's totals. */
export interface ShardCounts {
  lines: { read: number; ok: number; failed: number; skipped: number };
  /** Bytes of input the shard covers (range shards only; 0 for items). */
  bytes: number;
  errorsByCode: Record<string, number>;
  skippedByReason: Record<string, number>;
  /** Transcripts per input format. */
  formats: Record<string, number>;
  /** Structural repairs made by the adapters, by kind. */
  repairs: Record<string, number>;
  warnings: number;
}

export interface ShardReport {
  counts: ShardCounts;
  transcripts: TranscriptReport[];
}

/** Byte lengths of the three JSONL sections of a shard's body, in this order. */
export interface SectionSizes {
  transcripts: number;
  errors: number;
  refs: number;
}

/**
 * A processed shard, serialized. The output sections travel as one UTF-8 buffer that the worker hands over without a
 * copy (a transfer), so the main thread never holds them as strings: it writes them to the shard file as they are.
 */
export interface ShardOutput {
  /**
   * The sections back to back: compacted transcripts (one JSON line each, in input order), ErrorRecord lines (in
   * input order), and `{"ref","data"}` lines in order of first appearance in this shard, each ref once. With
   * `refParts`, the body holds only the refs section's text (what lies between the stored input lines) after the
   * errors.
   */
  body: Uint8Array;
  sizes: SectionSizes;
  /**
   * The refs section in the pieces it is written from, when it holds input lines the side store kept as they were read:
   * views of the body and of the chunks the worker read those lines into. The chunks move to the main thread with the
   * body (see outputBuffers), which writes the pieces with one call (writev).
   */
  refParts?: Uint8Array[];
  report: ShardReport;
  /** Transcripts handed on to the main thread's LLM stage: which one (in the transcripts section), and from which step. */
  handedOn?: HandedOnTranscript[];
  /** A range shard's: SHA-256 of the input bytes the worker read, hex (see RangeShard.sha256). */
  inputSha256?: string;
}

/** The descriptor to commit: a range shard's carries the hash of the bytes its worker read. */
export function withInputHash(shard: ShardDescriptor, output: Pick<ShardOutput, 'inputSha256'>): ShardDescriptor {
  return shard.kind === 'range' && output.inputSha256 !== undefined ? { ...shard, sha256: output.inputSha256 } : shard;
}

export type ShardOutcome = Outcome<ShardOutput>;

/** A shard in words, for messages: `file lines 10-42, bytes 1000-5000` or `input items 0-99`. */
export function describeShard(shard: ShardDescriptor): string {
  if (shard.kind === 'range') return `${shard.file} lines ${shard.firstLine}-${shard.firstLine + shard.lines - 1}, bytes ${shard.start}-${shard.end}`;
  return `${shard.input} items ${shard.firstItem}-${shard.firstItem + shard.count - 1}`;
}

/** A transcript the worker handed on at an LLM step: `index` in the shard's transcripts, `resumeAt` in the job's steps. */
export interface HandedOnTranscript {
  index: number;
  resumeAt: number;
}
