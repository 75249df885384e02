import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sectionTexts } from '../../../src/pipeline/shard/encoding.js';
import { commitShard, ensureShardsDir, readShard, shardPath } from '../../../src/pipeline/store/shard-store.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { realShards } from './real-shards.js';

describe('shard store', () => {
  it('reads a committed shard back as it was: descriptor, failed flag, each section and the report', async () => {
    const dir = tempDir('shard-store');
    const { shards } = await realShards(dir);
    await ensureShardsDir(dir);
    for (const [i, { planned, output }] of shards.entries()) await commitShard(dir, planned.shard, output, i === 1);
    expect(readdirSync(`${dir}/.shards`)).toEqual(shards.map((s) => `${String(s.planned.shard.index).padStart(6, '0')}.shard`));
    for (const [i, { planned, output }] of shards.entries()) {
      const stored = await readShard(dir, planned.shard.index);
      const texts = sectionTexts(output);
      expect(stored.shard).toEqual(planned.shard);
      expect(stored.failed).toBe(i === 1);
      expect(stored.transcripts.toString('utf8')).toBe(texts.transcripts);
      expect(stored.errors.toString('utf8')).toBe(texts.errors);
      expect(stored.refs.toString('utf8')).toBe(texts.refs);
      expect(stored.report).toEqual(output.report);
    }
  });

  it('refuses a shard file with bytes beyond its sections or no header', async () => {
    const dir = tempDir('shard-store');
    const { shards } = await realShards(dir);
    await ensureShardsDir(dir);
    const [{ planned, output }] = shards;
    await commitShard(dir, planned.shard, output, false);
    const path = shardPath(dir, 0);
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from('extra')]));
    await expect(readShard(dir, 0)).rejects.toThrow(`${path}: 5 bytes beyond the sections`);
    writeFileSync(path, 'no header line');
    await expect(readShard(dir, 0)).rejects.toThrow(`${path}: no header`);
  });
});
