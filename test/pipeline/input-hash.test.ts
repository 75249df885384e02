import { createHash } from 'node:crypto';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { readJournal } from '../../src/pipeline/store/journal.js';
import type { RangeShard } from '../../src/pipeline/shard/types.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { TEST_STRATEGIES, outputDigest, readReport, realLines, tempDir } from './helpers.js';

const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
const SHARD_BYTES = 96 * 1024;
const MTIME = 1_700_000_000;

/** An archive of real lines over 3 MiB, so its middle is outside the first and last MiB the input fingerprint hashes. */
async function bigArchive(dir: string): Promise<string> {
  const lines = await realLines({ count: 100, maxLineBytes: 30_000 });
  const text = lines.map((l) => `${l}\n`).join('');
  const path = join(dir, 'big.jsonl');
  writeFileSync(path, text.repeat(Math.ceil((3.5 * 1024 * 1024) / text.length)));
  // A whole second, which the edit below can put back exactly.
  utimesSync(path, MTIME, MTIME);
  return path;
}

/** A run in this thread stopped once `bytes` of input are done: the shards so far are committed. */
async function stoppedRun(archive: string, out: string, bytes: number) {
  const stop = new AbortController();
  const outcome = await runPipeline({
    inputs: [archive],
    outDir: out,
    config,
    inProcess: true,
    shardBytes: SHARD_BYTES,
    stop: stop.signal,
    onProgress: (p) => p.bytesDone >= bytes && stop.abort(),
  });
  expect(outcome.status).toBe('interrupted');
}

describe('the input hash of range shards', () => {
  it('is taken by the worker from the bytes it read and journaled with the shard', async () => {
    const dir = tempDir('input-hash');
    const archive = await bigArchive(dir);
    const out = join(dir, 'out');
    await stoppedRun(archive, out, 1024 * 1024);
    const data = readFileSync(archive);
    const shards = [...((await readJournal(out))?.shards.values() ?? [])].map((e) => e.shard as RangeShard);
    expect(shards.length).toBeGreaterThan(3);
    for (const s of shards) expect(s.sha256).toBe(createHash('sha256').update(data.subarray(s.start, s.end)).digest('hex'));
  });

  it('still refuses a resume over a committed shard whose bytes changed where the fingerprint does not look', async () => {
    const dir = tempDir('input-hash');
    const archive = await bigArchive(dir);
    const out = join(dir, 'out');
    const middle = Math.floor(statSync(archive).size / 2);
    await stoppedRun(archive, out, middle + SHARD_BYTES);
    const data = readFileSync(archive);
    data[middle] = data[middle] === 0x61 ? 0x62 : 0x61;
    writeFileSync(archive, data);
    utimesSync(archive, MTIME, MTIME);
    const resumed = runPipeline({ inputs: [archive], outDir: out, config, inProcess: true, shardBytes: SHARD_BYTES, resume: true });
    await expect(resumed).rejects.toMatchObject({ code: 'E_RESUME' });
    await expect(resumed).rejects.toThrow(/^the input changed since the journal was written \(shard \d+, .* differs from the committed one\)/);
  });

  it('lets an unchanged input resume, reusing the committed shards, to the bytes of an uninterrupted run', async () => {
    const dir = tempDir('input-hash');
    const archive = await bigArchive(dir);
    const whole = join(dir, 'whole');
    await runPipeline({ inputs: [archive], outDir: whole, config, inProcess: true, shardBytes: SHARD_BYTES });
    const out = join(dir, 'out');
    await stoppedRun(archive, out, 1024 * 1024);
    const committed = (await readJournal(out))?.shards.size ?? 0;
    await runPipeline({ inputs: [archive], outDir: out, config, workers: 2, shardBytes: SHARD_BYTES, resume: true });
    expect(readReport(out).execution.reusedShards).toBe(committed);
    expect(outputDigest(out)).toEqual(outputDigest(whole));
  });
});
