import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJob } from '../../../src/pipeline/job/job.js';
import { resolveRunSettings } from '../../../src/pipeline/job/settings.js';
import { planShards, type PlannedShard } from '../../../src/pipeline/plan/plan-shards.js';
import { resolveInputSources } from '../../../src/pipeline/plan/input-sources.js';
import { createInProcessExecutor } from '../../../src/pipeline/executors/in-process-executor.js';
import { createPoolExecutor } from '../../../src/pipeline/executors/pool-executor.js';
import type { ExecutionCounts, ShardRun } from '../../../src/pipeline/executors/executor.js';
import { settleShard } from '../../../src/pipeline/executors/settle-shard.js';
import { Journal, readJournal } from '../../../src/pipeline/store/journal.js';
import { ensureShardsDir, readShard, shardPath } from '../../../src/pipeline/store/shard-store.js';
import { sectionTexts } from '../../../src/pipeline/shard/encoding.js';
import { parseCompactConfig } from '../../../src/strategies/compact-config.js';
import { TEST_STRATEGIES, tempDir, writeRealArchive } from '../helpers.js';

const counts = (): ExecutionCounts => ({ shards: 0, reusedShards: 0, retriedShards: 0, failedShards: 0 });

/** A canonical archive of real bundled transcripts plus one malformed line, planned into small shards. */
async function plannedArchive(dir: string): Promise<{ planned: PlannedShard[]; job: ReturnType<typeof resolveRunSettings>['job'] }> {
  const file = join(dir, 'archive.jsonl');
  const lines = await writeRealArchive(file, { count: 12, maxLineBytes: 200_000 });
  writeFileSync(file, `${lines.slice(0, 6).join('\n')}\n{"id": "broken", \n${lines.slice(6).join('\n')}\n`);
  const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
  const settings = resolveRunSettings({ inputs: [file], shardBytes: 64 * 1024 }, createJob(config));
  const planned: PlannedShard[] = [];
  const sources = await resolveInputSources([file], settings.maxLineBytes);
  for await (const p of planShards(sources, { shardBytes: settings.shardBytes, maxItemsPerShard: 1000, maxLineBytes: settings.maxLineBytes })) planned.push(p);
  return { planned, job: settings.job };
}

function bodyOf(run: ShardRun | undefined): string {
  if (run?.kind !== 'output') throw new Error(`expected an output, got ${JSON.stringify(run)}`);
  const t = sectionTexts(run.output);
  return t.transcripts + t.errors + t.refs;
}

describe('executors', () => {
  it('the in-process executor gives the pool’s output byte for byte, shard by shard', async () => {
    const dir = tempDir('executors');
    const { planned, job } = await plannedArchive(dir);
    expect(planned.length).toBeGreaterThan(1);
    const abort = new AbortController().signal;
    const inProcess = createInProcessExecutor(job, abort);
    const pool = createPoolExecutor({ workers: 2, heapMb: 256, job, abort, execution: counts() });
    try {
      const local = await Promise.all(planned.map((p) => inProcess.run(p)));
      const pooled = await Promise.all(planned.map((p) => pool.run(p)));
      expect(pooled.map(bodyOf)).toEqual(local.map(bodyOf));
      // The malformed line is an error line of its shard, as data: the shard itself did not fail.
      expect(local.map(bodyOf).join('')).toContain('"code":"E_JSON"');
    } finally {
      await pool.close();
      await inProcess.close();
    }
  });

  it('the pool executor retries a crashing worker, then gives the shard up as E_WORKER data', async () => {
    const dir = tempDir('executors');
    const { planned, job } = await plannedArchive(dir);
    const execution = counts();
    const crash = new URL('../../fixtures/workers/always-exit.mjs', import.meta.url).href;
    const pool = createPoolExecutor({ workers: 1, heapMb: 128, job, abort: new AbortController().signal, execution, workerFile: crash });
    try {
      const run = await pool.run(planned[0]);
      expect(run).toEqual({ kind: 'error', error: { code: 'E_WORKER', message: expect.stringContaining('crashed on all 4 attempts') } });
      expect(execution.retriedShards).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('settling commits and journals a shard once; an error becomes the stand-in of every line of its shard', async () => {
    const dir = tempDir('executors');
    const { planned, job } = await plannedArchive(dir);
    await ensureShardsDir(dir);
    const journal = await Journal.create(dir, { settings: {}, settingsHash: 'h', inputs: [] });
    const execution = counts();
    const deps = { outDir: dir, journal, abort: new AbortController().signal, execution };
    const ran = await createInProcessExecutor(job, deps.abort).run(planned[0]);
    const ok = await settleShard(planned[0], ran as ShardRun, deps);
    expect(ok?.report.transcripts.length).toBeGreaterThan(0);
    const failed = await settleShard(planned[1], { kind: 'error', error: { code: 'E_IO', message: 'disk on fire' } }, deps);
    await journal.close();

    const stored = await readShard(dir, planned[1].shard.index);
    const errorLines = stored.errors.toString('utf8').trim().split('\n');
    expect(errorLines).toHaveLength(planned[1].shard.kind === 'range' ? planned[1].shard.lines : 0);
    expect(errorLines.every((l) => JSON.parse(l).code === 'E_IO')).toBe(true);
    expect(failed?.report.counts.lines.failed).toBe(errorLines.length);
    expect(execution.failedShards).toBe(1);
    const state = await readJournal(dir);
    expect([...(state?.shards.entries() ?? [])].map(([i, s]) => [i, s.failed])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it('settling runs the hook on a shard that did not fail, commits what it returns, and keeps a hook failure an error', async () => {
    const dir = tempDir('executors');
    const { planned, job } = await plannedArchive(dir);
    await ensureShardsDir(dir);
    const journal = await Journal.create(dir, { settings: {}, settingsHash: 'h', inputs: [] });
    const deps = { outDir: dir, journal, abort: new AbortController().signal, execution: counts() };
    const ran = (await createInProcessExecutor(job, deps.abort).run(planned[0])) as ShardRun & { kind: 'output' };
    let seen = 0;
    const hooked = await settleShard(planned[0], ran, {
      ...deps,
      afterShard: async (output) => {
        seen++;
        return { ...output, report: { ...output.report, transcripts: output.report.transcripts.slice(0, 1) } };
      },
    });
    expect(seen).toBe(1);
    expect(hooked?.report.transcripts).toHaveLength(1);
    expect((await readShard(dir, 0)).report.transcripts).toHaveLength(1);
    await expect(
      settleShard(
        planned[1],
        { kind: 'output', output: ran.output, standIn: false, committed: false },
        {
          ...deps,
          afterShard: async () => {
            throw new Error('model down');
          },
        },
      ),
    ).rejects.toThrow('model down');
    expect(existsSync(shardPath(dir, planned[1].shard.index))).toBe(false);
    await journal.close();
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});
