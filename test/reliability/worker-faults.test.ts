import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { BUNDLED, ROOT } from '../helpers/paths.js';
import {
  type ErrorLine,
  TEST_STRATEGIES,
  cliFaults,
  withWorkerFaults,
  accounting,
  outputDigest,
  readJsonl,
  readReport,
  runCli,
  tempDir,
  writeRealArchive,
} from '../pipeline/helpers.js';

/** RELIABILITY 16 and 17: a worker that crashes or runs out of heap loses only its shard, the run goes on. */
const dir = tempDir('faults');
const archive = join(dir, 'real.jsonl');
const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
const SHARD_BYTES = 16 * 1024;
/** A line in the middle, in a shard with several neighbours. */
const POISON = 30;
let clean: Record<string, string>;
let lineCount: number;

beforeAll(async () => {
  // Small real transcripts (tau-bench runs), so each crash costs a worker restart, not minutes of work.
  lineCount = (await writeRealArchive(archive, { maxLineBytes: 20_000, count: 60 })).length;
  const outDir = join(dir, 'clean');
  await runPipeline({ inputs: [archive], outDir, config, workers: 2, shardBytes: SHARD_BYTES });
  clean = outputDigest(outDir);
});

describe('worker crash mid-shard (RELIABILITY 16)', () => {
  it('retries the shard on a fresh worker, and the output is the same as without the crash', async () => {
    const outDir = join(dir, 'crash-once');
    const outcome = await withWorkerFaults({ crash: { line: POISON, mode: 'exit', attempts: 1 } }, (workerFile) =>
      runPipeline({
        inputs: [archive],
        outDir,
        config,
        workers: 2,
        shardBytes: SHARD_BYTES,
        workerFile,
      }),
    );
    expect(outcome.status).toBe('done');
    expect(readReport(outDir).execution).toMatchObject({ retriedShards: 1, failedShards: 0 });
    expect(outputDigest(outDir)).toEqual(clean);
  });

  it('after a crash on every attempt, reports each line of that shard as E_WORKER and processes the rest', async () => {
    const outDir = join(dir, 'crash-always');
    await withWorkerFaults({ crash: { line: POISON, mode: 'throw' } }, (workerFile) =>
      runPipeline({
        inputs: [archive],
        outDir,
        config,
        workers: 2,
        shardBytes: SHARD_BYTES,
        workerFile,
      }),
    );
    const report = readReport(outDir);
    const errors = readJsonl<ErrorLine>(join(outDir, 'errors.jsonl'));
    expect(report.execution).toMatchObject({ retriedShards: 1, failedShards: 1 });
    expect(errors.length).toBeGreaterThan(1);
    expect(errors.every((e) => e.code === 'E_WORKER' && e.message.includes('crashed on all 4 attempts'))).toBe(true);
    // The lost lines are one contiguous shard that contains the poison line; every other line was compacted.
    const lost = errors.map((e) => e.line);
    expect(lost).toEqual(Array.from({ length: lost.length }, (_, k) => lost[0] + k));
    expect(lost).toContain(POISON);
    expect(report.lines).toEqual({ read: lineCount, ok: lineCount - lost.length, failed: lost.length, skipped: 0 });
    expect(accounting(outDir)).toEqual({ identity: true, transcriptsOut: lineCount - lost.length, errorLines: lost.length });
  });

  it('does not hang when the worker cannot even load: every shard ends as E_WORKER', async () => {
    const outDir = join(dir, 'no-worker');
    const workerFile = pathToFileURL(join(ROOT, 'test/fixtures/workers/throw-on-load.mjs')).href;
    const outcome = await runPipeline({ inputs: [archive], outDir, config, workers: 2, shardBytes: 1024 * 1024, workerFile });
    expect(outcome.status).toBe('done');
    const report = readReport(outDir);
    expect(report.lines).toEqual({ read: lineCount, ok: 0, failed: lineCount, skipped: 0 });
    const errors = readJsonl<ErrorLine>(join(outDir, 'errors.jsonl'));
    expect(errors.map((e) => e.line)).toEqual(Array.from({ length: lineCount }, (_, k) => k + 1));
    expect(errors.every((e) => e.code === 'E_WORKER' && /fixture: this worker fails while loading/.test(e.message))).toBe(true);
  });
});

describe('worker crash on adapter input (RELIABILITY 16)', () => {
  it('reports the transcript of the crashing item shard as E_WORKER and converts the other files', async () => {
    const outDir = join(dir, 'items-crash');
    const poisoned = join(BUNDLED, 'swe-agent', 'pydicom__pydicom-1458.traj');
    await withWorkerFaults({ crash: { line: 1, mode: 'exit', file: poisoned } }, (workerFile) =>
      runPipeline({
        inputs: [join(BUNDLED, 'swe-agent')],
        outDir,
        config,
        workers: 2,
        workerFile,
      }),
    );
    const errors = readJsonl<ErrorLine>(join(outDir, 'errors.jsonl'));
    expect(errors.map(({ file, line, code }) => ({ file, line, code }))).toEqual([{ file: poisoned, line: 1, code: 'E_WORKER' }]);
    expect(readReport(outDir).lines).toEqual({ read: 3, ok: 2, failed: 1, skipped: 0 });
    expect(readReport(outDir).execution).toMatchObject({ shards: 3, failedShards: 1 });
  });
});

describe('worker out of memory (RELIABILITY 17)', () => {
  it('contains the OOM to its shard: the CLI exits 1 with E_WORKER lines, not 134', async () => {
    const outDir = join(dir, 'oom');
    const result = await runCli(
      [
        'run',
        archive,
        '--out',
        outDir,
        '--worker-heap-mb',
        '96',
        '--shard-bytes',
        String(SHARD_BYTES),
        '--quiet',
        ...TEST_STRATEGIES.flatMap((s) => ['--strategy', s]),
      ],
      cliFaults({ crash: { line: POISON, mode: 'oom' } }),
    );
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    const errors = readJsonl<ErrorLine>(join(outDir, 'errors.jsonl'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].message).toMatch(/ERR_WORKER_OUT_OF_MEMORY/);
    expect(accounting(outDir).identity).toBe(true);
    expect(readReport(outDir).lines.ok).toBe(lineCount - errors.length);
  });
});
