import type { ErrorInfo } from '../../errors.js';
import type { InputItem } from '../../formats/types.js';
import { readLines } from '../../io/line-reader.js';
import type { ShardDescriptor, ShardOutput } from './types.js';
import { ShardBuilder } from './shard-builder.js';

/**
 * The output that stands in for a shard no worker could process: every line it covers becomes an error with `error`'s
 * code (E_WORKER after a crash on every attempt), so nothing is lost from the accounting. For a range shard the line
 * positions are read again on the main thread without buffering the lines; for an items shard, the adapter's own
 * errors and skipped records stay what they were and each transcript becomes the error.
 */
export async function failedShardOutput(shard: ShardDescriptor, items: readonly InputItem[] | undefined, error: ErrorInfo): Promise<ShardOutput> {
  if (shard.kind === 'items') {
    const builder = new ShardBuilder();
    for (const item of items ?? []) {
      if (item.kind === 'skipped') builder.addSkipped(item.reason);
      else if (item.kind === 'error') builder.addError(item.record, item.lines ?? 1);
      else builder.addError({ file: item.file, line: item.line, byteOffset: item.byteOffset, ...error }, item.lines);
    }
    return builder.finish();
  }
  const builder = new ShardBuilder(shard.end - shard.start);
  let seen = 0;
  try {
    const lines = readLines(shard.file, { maxLineBytes: 1, start: shard.start, end: shard.end, firstLine: shard.firstLine, positionsOnly: true });
    for await (const raw of lines) {
      builder.addError({ file: shard.file, line: raw.line, byteOffset: raw.byteOffset, ...error });
      seen++;
    }
  } catch {
    // The file cannot be read again either: the remaining lines are reported at the shard's start offset.
  }
  for (let line = shard.firstLine + seen; line < shard.firstLine + shard.lines; line++) {
    builder.addError({ file: shard.file, line, byteOffset: shard.start, ...error });
  }
  return builder.finish();
}
