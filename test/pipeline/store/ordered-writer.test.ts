import { SIDE_STORE_HEADER } from '../../../src/refs/ref-file.js';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endShardOutput, sectionTexts } from '../../../src/pipeline/shard/encoding.js';
import { OutputBuffer } from '../../../src/pipeline/shard/output-buffer.js';
import { OrderedWriter, runFinalPaths } from '../../../src/pipeline/store/ordered-writer.js';
import { commitShard, ensureShardsDir, heldShard, shardPath } from '../../../src/pipeline/store/shard-store.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { type RealShard, mergedFiles, realShards } from './real-shards.js';

/** Real shards, run once for the file: each test commits them into a folder of its own. */
let cached: RealShard[] | undefined;
async function shards(): Promise<RealShard[]> {
  cached ??= (await realShards(tempDir('ordered-writer-src'))).shards;
  return cached;
}

async function committed(dir: string, all: RealShard[]): Promise<void> {
  await ensureShardsDir(dir);
  for (const { planned, output } of all) await commitShard(dir, planned.shard, output, false);
}

const read = (path: string) => readFileSync(path, 'utf8');
/** Files in DIR besides the committed shards (.shards). */
const finals = (dir: string) => readdirSync(dir).filter((n) => n !== '.shards');

describe('ordered writer', () => {
  it('merges shards committed in any order strictly in shard order, and shows the final files only when finished', async () => {
    const all = await shards();
    expect(all.length).toBeGreaterThan(3);
    const dir = tempDir('ordered-writer');
    await committed(dir, all);
    const merged: number[] = [];
    const writer = await OrderedWriter.open(dir, true, (index, report) => {
      merged.push(index);
      expect(report).toEqual(all[index].output.report);
    });
    // Last first, then the others from the end: nothing can merge until shard 0 arrives.
    const order = [...all.keys()].reverse();
    for (const index of order.slice(0, -1)) await writer.commit(index);
    expect(writer.merged).toBe(0);
    expect(merged).toEqual([]);
    await writer.commit(order[order.length - 1]);
    await writer.drained(all.length);
    expect(merged).toEqual([...all.keys()]);
    expect(writer.merged).toBe(all.length);
    // Still under temporary names.
    for (const name of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl', 'report.json', 'report.md']) expect(existsSync(join(dir, name))).toBe(false);

    await writer.finish('{"report":"json"}\n', '# report\n');
    const want = mergedFiles(all);
    const paths = runFinalPaths(dir);
    expect(read(paths.transcripts)).toBe(want.transcripts);
    expect(read(paths.errors)).toBe(want.errors);
    expect(want.errors).toContain('"code":"E_JSON"');
    expect(read(paths.refs)).toBe(want.refs);
    expect(read(paths.reportJson)).toBe('{"report":"json"}\n');
    expect(read(paths.reportMd)).toBe('# report\n');
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('merges a shard next in line from memory, and reads back from its file one that had to wait', async () => {
    const all = (await shards()).slice(0, 3);
    const dir = tempDir('ordered-writer');
    await committed(dir, all);
    const held = (i: number) => heldShard(all[i].planned.shard, all[i].output);
    // Shard 0's file is gone: only its output in memory can merge it. Shard 2 comes before 1, so it must wait, and it
    // is read back from its file, whose transcripts a marker stands for: the merged bytes say which copy was used.
    rmSync(shardPath(dir, 0));
    const marker = new OutputBuffer();
    marker.write('{"id":"from-file"}\n');
    const { errors, refs } = sectionTexts(all[2].output);
    const marked = endShardOutput(marker, errors, [refs], all[2].output.report);
    await commitShard(dir, all[2].planned.shard, marked, false);
    const writer = await OrderedWriter.open(dir, true, () => undefined);
    await writer.commit(0, held(0));
    await writer.commit(2, held(2));
    await writer.commit(1, held(1));
    await writer.finish('{}', '');
    const texts = all.map((s) => sectionTexts(s.output));
    expect(read(join(dir, 'transcripts.jsonl'))).toBe(`${texts[0].transcripts}${texts[1].transcripts}{"id":"from-file"}\n`);
  });

  it('writes the refs of each shard as they are after the header, a repeat across shards included', async () => {
    const all = await shards();
    const dir = tempDir('ordered-writer');
    // The same real shard twice in a row: every ref of the second copy is a repeat.
    const twice = [all[0], { planned: { shard: { ...all[0].planned.shard, index: 1 } }, output: all[0].output }];
    await committed(dir, twice);
    const writer = await OrderedWriter.open(dir, true, () => undefined);
    await writer.commit(1);
    await writer.commit(0);
    await writer.finish('{}', '');
    const refs = read(join(dir, 'refs.jsonl'));
    expect(refs).not.toBe('');
    expect(refs).toBe(SIDE_STORE_HEADER + sectionTexts(all[0].output).refs.repeat(2));
    expect(read(join(dir, 'transcripts.jsonl'))).toBe(sectionTexts(all[0].output).transcripts.repeat(2));
  });

  it('writes no refs file without refs, and to the paths it is given (compact writes FILE and FILE.refs.jsonl)', async () => {
    const all = await shards();
    const dir = tempDir('ordered-writer');
    await committed(dir, all);
    const out = join(dir, 'compacted.jsonl');
    const paths = { ...runFinalPaths(dir), transcripts: out, refs: join(dir, 'compacted.refs.jsonl') };
    const writer = await OrderedWriter.open(dir, false, () => undefined, paths);
    for (const index of all.keys()) await writer.commit(index);
    await writer.finish('{}', '');
    expect(read(out)).toBe(mergedFiles(all).transcripts);
    expect(existsSync(join(dir, 'compacted.refs.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'refs.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'transcripts.jsonl'))).toBe(false);
  });

  it('says how far it got when a shard never came, and discard leaves no file behind', async () => {
    const all = await shards();
    const dir = tempDir('ordered-writer');
    await committed(dir, all);
    const writer = await OrderedWriter.open(dir, true, () => undefined);
    await writer.commit(0);
    await writer.commit(2);
    await expect(writer.drained(all.length)).rejects.toThrow(`ordered writer: 1 of ${all.length} shards merged`);
    await writer.close();
    expect(finals(dir)).toEqual([]);
  });
});
