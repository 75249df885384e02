import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { runMain } from '../helpers/cli-in-process.js';
import {
  SMALL_SHARD_BYTES,
  TEST_STRATEGIES,
  cliFaults,
  shardedRunArgs,
  outputDigest,
  readReport,
  runCli,
  tempDir,
  writeRealArchive,
} from '../pipeline/helpers.js';

/**
 * RELIABILITY 18 and 19 with the built CLI: Ctrl-C and `kill -9` at seeded random points, each followed by `--resume`,
 * must end in the very bytes of an uninterrupted run (a full disk, 20, is disk-full.test.ts). The interrupted runs are child processes;
 * the uninterrupted run and the resumes need none (the journal, resume check and merge have unit tests of their own in
 * test/pipeline/store/).
 */
const dir = tempDir('resume');
const archive = join(dir, 'real.jsonl');
const baseArgs = (out: string): string[] => shardedRunArgs(archive, out);
/** Slows every shard down so a signal lands mid-run; it changes no output byte. */
const SLOW = cliFaults({ shardDelayMs: 150 });
let expected: Record<string, string>;
let shardCount: number;

/** mulberry32: a tiny seeded PRNG, so the "random" kill points are the same on every run of the suite. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function committedShards(out: string): number {
  const path = join(out, 'journal.jsonl');
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"shard"')).length;
}

/** Sends `signal` once at least `shards` shards are journaled (plus `extraMs`), so the stop lands mid-run. */
function signalAfter(out: string, shards: number, signal: NodeJS.Signals, extraMs = 0) {
  return (_pid: number, kill: (s: NodeJS.Signals) => void) => {
    void (async () => {
      while (committedShards(out) < shards) await sleep(10);
      await sleep(extraMs);
      kill(signal);
    })();
  };
}

function leftovers(out: string): string[] {
  const names = existsSync(out) ? readdirSync(out) : [];
  const shards = existsSync(join(out, '.shards')) ? readdirSync(join(out, '.shards')) : [];
  return [...names, ...shards].filter((n) => n.includes('.tmp-'));
}

beforeAll(async () => {
  await writeRealArchive(archive, { maxLineBytes: 30_000, count: 100 });
  const out = join(dir, 'uninterrupted');
  const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
  expect((await runPipeline({ inputs: [archive], outDir: out, config, workers: 2, shardBytes: SMALL_SHARD_BYTES })).status).toBe('done');
  expected = outputDigest(out);
  shardCount = readReport(out).execution.shards;
  expect(shardCount).toBeGreaterThan(12);
});

describe('SIGINT, then --resume (RELIABILITY 18)', () => {
  it('stops cleanly with exit 130, refuses a resume with a changed config, then finishes byte-identically', async () => {
    const out = join(dir, 'sigint');
    const stopped = await runCli(baseArgs(out), { ...SLOW, onSpawn: signalAfter(out, 3, 'SIGINT') });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/interrupted; finishing the shards in flight/);
    expect(stopped.stderr).toMatch(/--resume to finish/);
    expect(existsSync(join(out, 'report.json'))).toBe(false);
    expect(existsSync(join(out, 'transcripts.jsonl'))).toBe(false);
    const committed = committedShards(out);
    expect(committed).toBeGreaterThanOrEqual(3);
    expect(committed).toBeLessThan(shardCount);

    // The exit code and message of a refused resume; each kind of change it names is in resume-check.test.ts.
    const otherConfig = await runMain([...baseArgs(out), '--resume', '--keep-last', '2']);
    expect(otherConfig.code).toBe(3);
    expect(otherConfig.stderr).toContain('E_RESUME: the configuration changed since the journal was written (config.keepLast: 0 -> 2)');

    const resumed = await runMain([...baseArgs(out), '--resume']);
    expect(resumed.code).toBe(0);
    expect(outputDigest(out)).toEqual(expected);
    expect(readReport(out).execution.reusedShards).toBe(committed);
  });
});

describe('kill -9 at a random point, then --resume (RELIABILITY 19)', () => {
  const random = prng(20240519);
  for (let round = 1; round <= 3; round++) {
    it(`round ${round}: the resumed output is byte-identical to an uninterrupted run`, async () => {
      const out = join(dir, `kill-${round}`);
      const after = 1 + Math.floor(random() * (shardCount - 2));
      const extraMs = Math.floor(random() * 120);
      const killed = await runCli(baseArgs(out), { ...SLOW, onSpawn: signalAfter(out, after, 'SIGKILL', extraMs) });
      expect(killed.signal).toBe('SIGKILL');
      expect(existsSync(join(out, 'report.json'))).toBe(false);
      const resumed = await runMain([...baseArgs(out), '--resume']);
      expect(resumed.code).toBe(0);
      expect(outputDigest(out)).toEqual(expected);
      expect(leftovers(out)).toEqual([]);
      expect(existsSync(join(out, '.shards'))).toBe(false);
    });
  }
});
