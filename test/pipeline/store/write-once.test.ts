import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, readJournal } from '../../../src/pipeline/store/journal.js';
import { OrderedWriter, runFinalPaths } from '../../../src/pipeline/store/ordered-writer.js';
import { resumePoint } from '../../../src/pipeline/store/resume-point.js';
import { readShard, shardPath } from '../../../src/pipeline/store/shard-store.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { type RealShard, mergedFiles, ownCopy, realShards } from './real-shards.js';

/** Real shards, run once for the file: each test commits them into a folder of its own. */
let cached: RealShard[] | undefined;
async function shards(): Promise<RealShard[]> {
  cached ??= (await realShards(tempDir('write-once-src'))).shards;
  return cached;
}

async function writerIn(dir: string, heldBytesMax?: number) {
  const journal = await Journal.create(dir, { settings: {}, settingsHash: 'h', inputs: [] });
  const merged: number[] = [];
  const writer = await OrderedWriter.open(dir, true, (index) => merged.push(index), runFinalPaths(dir), {
    journal,
    ...(heldBytesMax === undefined ? {} : { heldBytesMax }),
  });
  return { journal, writer, merged };
}

const read = (path: string) => readFileSync(path, 'utf8');

describe('writing each shard once', () => {
  it('puts a shard next in line straight into the merged files; its own file holds only its report and where it ends', async () => {
    const all = await shards();
    const dir = tempDir('write-once');
    const { journal, writer } = await writerIn(dir);
    for (const { planned, output } of all) await writer.settle(planned.shard, output, false);
    const state = await readJournal(dir);
    for (const { planned, output } of all) {
      const stored = await readShard(dir, planned.shard.index);
      expect(stored.transcripts.length + stored.errors.length + stored.refs.length).toBe(0);
      expect(stored.report).toEqual(output.report);
      expect(stored.merged).toEqual(state?.shards.get(planned.shard.index)?.merged);
      expect(statSync(shardPath(dir, planned.shard.index)).size).toBeLessThan(output.body.byteLength + 4096);
    }
    const last = state?.shards.get(all.length - 1)?.merged;
    expect(last?.transcripts).toBe(Buffer.byteLength(mergedFiles(all).transcripts));
    await writer.finish('{}\n', '# report\n');
    await journal.close();
    const want = mergedFiles(all);
    expect(read(join(dir, 'transcripts.jsonl'))).toBe(want.transcripts);
    expect(read(join(dir, 'errors.jsonl'))).toBe(want.errors);
    expect(read(join(dir, 'refs.jsonl'))).toBe(want.refs);
  });

  it("with the outputs handed over, frees each one's buffer once written (early ones too), the merged files unchanged", async () => {
    const all = await shards();
    const want = mergedFiles(all);
    // Copies of their own: freeing a buffer empties every view of it.
    expect(all.some(({ output }) => output.refParts !== undefined)).toBe(true);
    for (const heldBytesMax of [undefined, 0]) {
      const dir = tempDir('write-once');
      const journal = await Journal.create(dir, { settings: {}, settingsHash: 'h', inputs: [] });
      const writer = await OrderedWriter.open(dir, true, () => undefined, runFinalPaths(dir), {
        journal,
        releaseSettled: true,
        ...(heldBytesMax === undefined ? {} : { heldBytesMax }),
      });
      const outputs = all.map(({ planned, output }) => ({ planned, output: ownCopy(output) }));
      const [first, second, ...rest] = outputs;
      await writer.settle(second.planned.shard, second.output, false);
      await writer.settle(first.planned.shard, first.output, false);
      for (const { planned, output } of rest) await writer.settle(planned.shard, output, false);
      await writer.drained(outputs.length);
      for (const { output } of outputs) expect([output.body, ...(output.refParts ?? [])].every((b) => b.byteLength === 0)).toBe(true);
      await writer.finish('{}\n', '# report\n');
      await journal.close();
      expect(read(join(dir, 'transcripts.jsonl'))).toBe(want.transcripts);
      expect(read(join(dir, 'refs.jsonl'))).toBe(want.refs);
    }
    for (const { output } of all) expect([output.body, ...(output.refParts ?? [])].every((b) => b.byteLength > 0)).toBe(true);
  });

  it('holds a shard that finished early until its turn, or commits it to its own file when memory is full', async () => {
    const all = await shards();
    expect(all.length).toBeGreaterThan(3);
    for (const heldBytesMax of [undefined, 0]) {
      const dir = tempDir('write-once');
      const { journal, writer, merged } = await writerIn(dir, heldBytesMax);
      const [first, second, ...rest] = all;
      await writer.settle(second.planned.shard, second.output, false);
      expect(merged).toEqual([]);
      // Held in memory: not committed until its turn. Over the limit: committed to its own file at once.
      expect((await readJournal(dir))?.shards.has(1)).toBe(heldBytesMax === 0);
      await writer.settle(first.planned.shard, first.output, false);
      for (const { planned, output } of rest) await writer.settle(planned.shard, output, false);
      expect(merged).toEqual([...all.keys()]);
      expect((await readShard(dir, 1)).merged === undefined).toBe(heldBytesMax === 0);
      await writer.finish('{}\n', '');
      await journal.close();
      expect(read(join(dir, 'transcripts.jsonl'))).toBe(mergedFiles(all).transcripts);
      expect(read(join(dir, 'refs.jsonl'))).toBe(mergedFiles(all).refs);
    }
  });

  it('resumes from the sizes the journal recorded: what a kill left after them is cut off, the header of the side store written once', async () => {
    const all = await shards();
    const dir = tempDir('write-once');
    const first = await writerIn(dir);
    const kept = Math.floor(all.length / 2);
    for (const { planned, output } of all.slice(0, kept)) await first.writer.settle(planned.shard, output, false);
    await first.writer.close();
    await first.journal.close();
    // A kill while the next shard was being appended: bytes no journal entry covers.
    appendFileSync(join(dir, '.shards', 'transcripts.jsonl'), '{"id":"torn"');
    appendFileSync(join(dir, '.shards', 'refs.jsonl'), '{"ref":"torn');

    const state = await readJournal(dir);
    const point = await resumePoint(dir, state?.shards ?? new Map());
    expect(point.prefix).toBe(kept);
    expect([...point.reusable.keys()]).toEqual([...Array(kept).keys()]);
    const journal = await Journal.reopen(dir, state?.validBytes ?? 0);
    const merged: number[] = [];
    const writer = await OrderedWriter.open(dir, true, (index) => merged.push(index), runFinalPaths(dir), { journal, resume: point });
    for (let index = 0; index < kept; index++) await writer.commit(index);
    for (const { planned, output } of all.slice(kept)) await writer.settle(planned.shard, output, false);
    await writer.finish('{}\n', '');
    await journal.close();
    expect(merged).toEqual([...all.keys()]);
    const want = mergedFiles(all);
    expect(read(join(dir, 'transcripts.jsonl'))).toBe(want.transcripts);
    expect(read(join(dir, 'refs.jsonl'))).toBe(want.refs);
  });

  it('after a failed shard, commits every later shard to its own file, so a resume that processes the failed one again keeps them', async () => {
    const all = await shards();
    const dir = tempDir('write-once');
    const { journal, writer } = await writerIn(dir);
    for (const [i, { planned, output }] of all.entries()) await writer.settle(planned.shard, output, i === 1);
    await writer.close();
    await journal.close();
    const point = await resumePoint(dir, (await readJournal(dir))?.shards ?? new Map());
    expect(point.prefix).toBe(1);
    expect([...point.reusable.keys()]).toEqual([...all.keys()]);
    for (const i of all.keys()) expect((await readShard(dir, i)).merged === undefined).toBe(i >= 1);
  });

  it('keeps nothing of the merged files when they are shorter than the journal says, and reuses only the shards with files of their own', async () => {
    const all = await shards();
    const dir = tempDir('write-once');
    const { journal, writer } = await writerIn(dir, 0);
    const [first, second] = all;
    await writer.settle(second.planned.shard, second.output, false);
    await writer.settle(first.planned.shard, first.output, false);
    await writer.close();
    await journal.close();
    writeFileSync(join(dir, '.shards', 'transcripts.jsonl'), '');
    const point = await resumePoint(dir, (await readJournal(dir))?.shards ?? new Map());
    expect(point.prefix).toBe(0);
    expect([...point.reusable.keys()]).toEqual([1]);
  });

  it('cuts the merged files before a shard whose file is gone, and processes the shards from there again', async () => {
    const all = await shards();
    const dir = tempDir('write-once');
    const { journal, writer } = await writerIn(dir);
    for (const { planned, output } of all) await writer.settle(planned.shard, output, false);
    await writer.close();
    await journal.close();
    rmSync(shardPath(dir, 2));
    const point = await resumePoint(dir, (await readJournal(dir))?.shards ?? new Map());
    expect(point.prefix).toBe(2);
    expect([...point.reusable.keys()]).toEqual([0, 1]);
    expect(point.offsets).toEqual((await readJournal(dir))?.shards.get(1)?.merged);
  });
});
