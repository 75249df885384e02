import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../../src/io/line-reader.js';
import { planRangeShards } from '../../../src/pipeline/plan/plan-ranges.js';
import type { RangeShard } from '../../../src/pipeline/shard/types.js';
import { tempDir, writeRealArchive } from '../helpers.js';

const dir = tempDir('plan');

async function plan(path: string, shardBytes: number): Promise<RangeShard[]> {
  const out: RangeShard[] = [];
  for await (const s of planRangeShards(path, { shardBytes, firstIndex: 0 })) out.push(s);
  return out;
}

describe('planRangeShards', () => {
  it('cuts a real archive into contiguous shards of whole lines, each numbered, counted and hashed', async () => {
    const path = join(dir, 'real.jsonl');
    const lines = await writeRealArchive(path);
    const data = readFileSync(path);
    const shards = await plan(path, 64 * 1024);
    expect(shards.length).toBeGreaterThan(10);
    let expectedStart = 0;
    let expectedLine = 1;
    for (const [i, s] of shards.entries()) {
      expect(s).toMatchObject({ index: i, start: expectedStart, firstLine: expectedLine });
      expect(data[s.end - 1]).toBe(10); // ends right after a line end
      expect(s.end - s.start).toBeGreaterThanOrEqual(i < shards.length - 1 ? 64 * 1024 : 1);
      expect(s.sha256).toBe(createHash('sha256').update(data.subarray(s.start, s.end)).digest('hex'));
      // The worker's view of the range agrees with the planner's line numbers.
      const read: number[] = [];
      for await (const raw of readLines(path, { maxLineBytes: 1 << 26, start: s.start, end: s.end, firstLine: s.firstLine })) read.push(raw.line);
      expect(read).toEqual(Array.from({ length: s.lines }, (_, k) => s.firstLine + k));
      expectedStart = s.end;
      expectedLine += s.lines;
    }
    expect(expectedStart).toBe(data.length);
    expect(expectedLine - 1).toBe(lines.length);
  });

  it('counts an unterminated last line and makes no shard for an empty file', async () => {
    writeFileSync(join(dir, 'tail.jsonl'), 'a\nbb\nccc');
    expect(await plan(join(dir, 'tail.jsonl'), 4)).toEqual([
      expect.objectContaining({ start: 0, end: 5, firstLine: 1, lines: 2 }),
      expect.objectContaining({ start: 5, end: 8, firstLine: 3, lines: 1 }),
    ]);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect(await plan(join(dir, 'empty.jsonl'), 4)).toEqual([]);
  });

  it('gives a line longer than the target a shard of its own, across read chunks', async () => {
    const long = 'x'.repeat(3 * 1024 * 1024);
    writeFileSync(join(dir, 'long.jsonl'), `s\n${long}\nt\n`);
    const shards = await plan(join(dir, 'long.jsonl'), 1024);
    expect(shards.map((s) => [s.firstLine, s.lines, s.end - s.start])).toEqual([
      [1, 2, 2 + long.length + 1],
      [3, 1, 2],
    ]);
  });
});
