import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { RangeShard } from '../shard/types.js';

interface RangePlanOptions {
  /** A shard ends at the first line end at or after this many bytes from its start. */
  shardBytes: number;
  /** Index of the first shard (shards are numbered across the whole run). */
  firstIndex: number;
  /** Which shards to hash (a resume: the ones it reuses); by default every one. */
  hash?: (index: number) => boolean;
}

/**
 * Splits a canonical JSONL archive into shards of whole lines by byte range, without parsing: it only looks for `\n`
 * (memchr speed), and hashes the ranges `hash` asks for as they stream past. A run's workers hash the ranges they read
 * themselves, so a run asks only for the ones a resume reuses. Memory stays at one read chunk whatever the line lengths.
 */
export async function* planRangeShards(file: string, options: RangePlanOptions): AsyncGenerator<RangeShard> {
  const wanted = options.hash ?? (() => true);
  let index = options.firstIndex;
  let start = 0;
  let firstLine = 1;
  let lines = 0;
  let hash: Hash | undefined = wanted(index) ? createHash('sha256') : undefined;
  let position = 0;
  let lastByte = -1;
  const cut = (end: number): RangeShard => {
    const shard: RangeShard = { kind: 'range', index: index++, file, start, end, firstLine, lines };
    if (hash) shard.sha256 = hash.digest('hex');
    start = end;
    firstLine += lines;
    lines = 0;
    hash = wanted(index) ? createHash('sha256') : undefined;
    return shard;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      // Only the first line end at or after the target matters; lines before it are counted, not looked at.
      const target = start + options.shardBytes - 1 - position;
      const nl = target < chunk.length ? chunk.indexOf(10, Math.max(from, target)) : -1;
      if (nl === -1) {
        lines += countNewlines(chunk, from, chunk.length);
        hash?.update(chunk.subarray(from));
        break;
      }
      lines += countNewlines(chunk, from, nl + 1);
      hash?.update(chunk.subarray(from, nl + 1));
      from = nl + 1;
      yield cut(position + from);
    }
    position += chunk.length;
    lastByte = chunk[chunk.length - 1];
  }
  if (position > start) {
    if (lastByte !== 10) lines++;
    yield cut(position);
  }
}

function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  let i = buf.indexOf(10, from);
  while (i !== -1 && i < to) {
    n++;
    i = buf.indexOf(10, i + 1);
  }
  return n;
}
