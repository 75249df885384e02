import type { ErrorRecord } from '../errors.js';
import type { InputItem } from './types.js';

interface LineCounts {
  read: number;
  ok: number;
  failed: number;
  skipped: number;
}

/**
 * Where the input lines went, counted in lines (an error or a transcript may span several): every line is counted once
 * as ok, failed or skipped, so `read = ok + failed + skipped` holds by construction. Shared by `run`'s shards,
 * `compact`, `stats`, `eval` and `simulate`, so they all count alike.
 */
export class LineTally {
  readonly lines: LineCounts = { read: 0, ok: 0, failed: 0, skipped: 0 };
  /** Failed input lines by error code. */
  readonly errorsByCode: Record<string, number> = {};
  readonly skippedByReason: Record<string, number> = {};
  transcripts = 0;

  /** Counts an item: returns the transcript item, or undefined after counting an error or a skipped record. */
  item(item: InputItem): Extract<InputItem, { kind: 'transcript' }> | undefined {
    if (item.kind === 'error') this.failed(item.record, item.lines ?? 1);
    else if (item.kind === 'skipped') this.skipped(item.reason);
    else return item;
    return undefined;
  }

  ok(lines: number): void {
    this.transcripts++;
    this.lines.read += lines;
    this.lines.ok += lines;
  }

  failed(record: Pick<ErrorRecord, 'code'>, lines = 1): void {
    this.lines.read += lines;
    this.lines.failed += lines;
    this.errorsByCode[record.code] = (this.errorsByCode[record.code] ?? 0) + lines;
  }

  skipped(reason: string): void {
    this.lines.read++;
    this.lines.skipped++;
    this.skippedByReason[reason] = (this.skippedByReason[reason] ?? 0) + 1;
  }
}
