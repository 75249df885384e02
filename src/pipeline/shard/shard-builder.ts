import type { ErrorRecord } from '../../errors.js';
import { LineTally } from '../../formats/line-tally.js';
import { RefSink } from '../../refs/ref-store.js';
import type { HandedOnTranscript, ShardCounts, ShardOutput, TranscriptReport } from './types.js';
import { endShardOutput } from './encoding.js';
import { OutputBuffer } from './output-buffer.js';

const NEWLINE = Buffer.from('\n');

export function emptyCounts(): ShardCounts {
  return {
    lines: { read: 0, ok: 0, failed: 0, skipped: 0 },
    bytes: 0,
    errorsByCode: {},
    skippedByReason: {},
    formats: {},
    repairs: {},
    warnings: 0,
  };
}

export function bump(into: Record<string, number>, key: string, n = 1): void {
  into[key] = (into[key] ?? 0) + n;
}

/**
 * Accumulates one shard's output in input order. Every input line goes through exactly one of addTranscript, addError
 * or addSkipped, which is what keeps `lines.read = ok + failed + skipped` true by construction.
 */
export class ShardBuilder {
  /** Where the shard's strategies put replaced content; its insertion order is the order of first appearance. */
  readonly refs = new RefSink();
  /**
   * The transcripts section, written as each transcript is added, outside V8's heap: held as strings until the shard
   * ends, they outlived the young generation and were copied, promoted and then collected by a full collection, a byte
   * of GC work per byte out. The errors and the refs follow it when the shard ends.
   */
  private readonly body: OutputBuffer;
  private readonly errors: string[] = [];
  private readonly reports: TranscriptReport[] = [];
  private readonly handedOn: HandedOnTranscript[] = [];
  private readonly tally = new LineTally();
  private readonly counts: ShardCounts;

  /**
   * `bytes`: the input's size, for a range shard. `ownLines`: the input lines given as bytes are views of chunks this
   * shard read for itself, which its output may take (see endShardOutput).
   */
  constructor(
    bytes = 0,
    private readonly ownLines = false,
  ) {
    const { lines, errorsByCode, skippedByReason } = this.tally;
    this.counts = { ...emptyCounts(), lines, errorsByCode, skippedByReason, bytes };
    // A range shard's output is mostly its input again, compacted, and with a side store its recipes and locators.
    this.body = new OutputBuffer(2 * bytes);
  }

  /** `json`: the transcript's line without `\n`, as text or as its UTF-8 bytes (an unchanged input line's own). */
  addTranscript(
    json: string | Uint8Array,
    report: TranscriptReport,
    lines: number,
    format: string,
    warnings: number,
    repairs: Record<string, number>,
    resumeAt?: number,
  ): void {
    if (resumeAt !== undefined) this.handedOn.push({ index: this.reports.length, resumeAt });
    this.body.write(json);
    this.body.write(NEWLINE);
    this.reports.push(report);
    this.tally.ok(lines);
    bump(this.counts.formats, format);
    this.counts.warnings += warnings;
    for (const [kind, n] of Object.entries(repairs)) if (n > 0) bump(this.counts.repairs, kind, n);
  }

  addError(record: ErrorRecord, lines = 1): void {
    const { file, line, byteOffset, code, message } = record;
    this.errors.push(JSON.stringify({ file, line, byteOffset, code, message }), '\n');
    this.tally.failed(record, lines);
  }

  addSkipped(reason: string): void {
    this.tally.skipped(reason);
  }

  finish(): ShardOutput {
    const report = { counts: this.counts, transcripts: this.reports };
    return endShardOutput(this.body, this.errors.join(''), this.refs.chunks(), report, { handedOn: this.handedOn, ownLines: this.ownLines });
  }
}
