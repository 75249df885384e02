import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseQueueUrl } from '../../../../src/pipeline/executors/queue/queue-url.js';
import type { RunOptions } from '../../../../src/pipeline/run-options.js';
import { runPipeline } from '../../../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../../../src/strategies/compact-config.js';
import {
  BUNDLED,
  TEST_STRATEGIES,
  cliFaults,
  outputDigest,
  readReport,
  runCli,
  tempDir,
  withWorkerFaults,
  writeRealArchive,
  type CliResult,
} from '../../helpers.js';
import { runMain } from '../../../helpers/cli-in-process.js';
import { WorkerProcess, killLeftoverWorkers, allLogs, within, workersConnected } from './processes.js';
import { Redis } from 'ioredis';
import { RedisServer, freePort, redisServerAvailable } from '../../../../bench/lib/redis-server.js';

/**
 * The built CLI and a real redis-server: a coordinator and `tcompact worker` processes must write the
 * very bytes of a local run, through a worker killed with -9, a killed coordinator, a poison shard and a lost Redis.
 * The workers are always processes. A coordinator is one only where it is killed or takes injected faults; elsewhere it
 * runs in this process (the same `main`, flags and exit codes), which saves a node start and module load per run.
 */
const PASSWORD = 'pw-7f3a9c1e-secret';
const dir = tempDir('distributed');
const archive = join(dir, 'real.jsonl');
const SHARD_BYTES = 64 * 1024;
const FILES = ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl'] as const;
const strategies = TEST_STRATEGIES.flatMap((s) => ['--strategy', s]);
const runArgs = (input: string, out: string, extra: string[] = []): string[] => [
  'run',
  input,
  '--out',
  out,
  '--shard-bytes',
  String(SHARD_BYTES),
  '--quiet',
  ...strategies,
  ...extra,
];
/** Slows every shard so a kill lands mid-run; it changes no output byte. */
const SLOW = cliFaults({ shardDelayMs: 120 });
/**
 * A worker process looks for new runs once a second, so a connected worker may find a run up to a second after another
 * one: a run that both must share lasts longer than that (7 shards of 400 ms on one thread each, not 7 of 120).
 */
const SHARED = cliFaults({ shardDelayMs: 400 });

function files(out: string): Record<string, string> {
  const digest = outputDigest(out) as Record<string, string>;
  return Object.fromEntries(FILES.map((f) => [f, digest[f]]));
}

function journaled(out: string): number {
  try {
    return readFileSync(join(out, 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"shard"')).length;
  } catch {
    return 0;
  }
}

function distributedOf(out: string): { queue: string; url: string; workersSeen: number; stalledRecovered: number; retried: number } {
  return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).distributed;
}

/** A coordinator, or a local run, in this process: for the runs that are not killed and take no injected fault. */
async function coordinateHere(args: string[]): Promise<CliResult> {
  const result = await runMain(args);
  allLogs.push(result.stdout, result.stderr);
  return result;
}

/** A run of `archive` from the library in this process, with the settings of {@link runArgs}. */
function runHere(outDir: string, more: Partial<RunOptions>): ReturnType<typeof runPipeline> {
  const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
  return runPipeline({ inputs: [archive], outDir, config, shardBytes: SHARD_BYTES, ...more });
}

/** A coordinator, or a local run, as a process of the built CLI: for the runs killed with -9 or given faults. */
async function coordinate(
  args: string[],
  faults: { env: Record<string, string>; nodeArgs: string[] } = { env: {}, nodeArgs: [] },
  onSpawn?: (pid: number, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<CliResult> {
  const result = await runCli(args, { ...faults, onSpawn });
  allLogs.push(result.stdout, result.stderr);
  return result;
}

const available = redisServerAvailable();

describe("the queue's retry back-off", () => {
  it('is E_CONFIG unless a whole number of milliseconds, 0 or more, before DIR or Redis is touched', async () => {
    const out = join(dir, 'bad-retry');
    // No Redis listens on port 1: the check comes before the queue is reached.
    const queue = parseQueueUrl('redis://127.0.0.1:1');
    for (const queueRetryMs of [-1, 1.5, Number.NaN])
      await expect(runHere(out, { workers: 0, queue, queueRetryMs })).rejects.toMatchObject({
        code: 'E_CONFIG',
        message: expect.stringContaining(`queueRetryMs must be a whole number of milliseconds, 0 or more (got ${queueRetryMs})`),
      });
    expect(existsSync(out)).toBe(false);
  });
});

describe.skipIf(!available)('distributed run on BullMQ and a real redis-server', () => {
  let redis: RedisServer;
  let expected: Record<string, string>;
  /** Worker processes shared by several tests, which afterEach leaves running. */
  const kept = new Set<WorkerProcess>();

  beforeAll(async () => {
    redis = await RedisServer.start(PASSWORD);
    // About 0.5 MB of real transcripts of every bundled source: some 8 shards, enough for a kill to land mid-run (after
    // 3 journaled shards, or 1 of a worker's); every shard more is waited on in every run of this file.
    await writeRealArchive(archive, { count: 30, maxLineBytes: 100_000 });
    const local = await coordinateHere(runArgs(archive, join(dir, 'local'), ['--workers', '2']));
    expect(local.code).toBe(0);
    expected = files(join(dir, 'local'));
  });

  // A test that failed before stopping its worker processes must not leave them taking the next test's shards. Every
  // test uses the URL with its password: after each, no log of its processes and no file in DIR holds it.
  afterEach(async () => {
    await killLeftoverWorkers(kept);
    const logs = allLogs.splice(0).join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(PASSWORD);
    const walk = (path: string): string[] => (statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => walk(join(path, name))) : [path]);
    for (const file of walk(dir)) expect(readFileSync(file, 'utf8').includes(PASSWORD), file).toBe(false);
  });

  afterAll(async () => {
    await killLeftoverWorkers();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one coordinator and two worker processes write the same bytes as a local run, with a distributed report', async () => {
    const localOut = join(dir, 'bundled-local');
    const out = join(dir, 'bundled-queue');
    // Adapter input (SWE-agent trajectories, OpenHands events): items shards, read on the coordinator.
    const inputs = [join(BUNDLED, 'swe-agent'), join(BUNDLED, 'openhands')];
    expect((await coordinateHere([...runArgs(inputs[0], localOut, ['--workers', '2']), inputs[1]])).code).toBe(0);
    // Both take work: they are connected before the run starts, and the run outlasts their discovery (SHARED).
    const workers = [new WorkerProcess(redis.url, SHARED), new WorkerProcess(redis.url, SHARED)];
    await workersConnected(redis.url, 2);
    const run = await coordinateHere([...runArgs(inputs[0], out, ['--workers', '0', '--queue', redis.url]), inputs[1]]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(files(out)).toEqual(files(localOut));
    const report = distributedOf(out);
    expect(report.url).toBe(`redis://:***@127.0.0.1:${redis.port}`);
    expect(report.workersSeen).toBe(2);
    expect(await Promise.all(workers.map((w) => w.stop()))).toEqual([0, 0]);
    expect(workers[0].stdout).toMatch(/run tcompact-[0-9a-f]{16} shard \d+ [\d.]+ MB \d+ ms attempt 1 ok/);
  });

  it('a coordinator with --workers 2 and no worker process does every shard on its own threads', async () => {
    const out = join(dir, 'local-threads');
    const run = await coordinateHere(runArgs(archive, out, ['--workers', '2', '--queue', redis.url]));
    expect(run.code).toBe(0);
    expect(files(out)).toEqual(expected);
    expect(distributedOf(out).workersSeen).toBe(1);
  });

  // Two runs with a thread restart per crash, and two process starts: over a minute on a loaded 2-core machine.
  it('a shard that crashes its worker on every attempt ends as the same E_WORKER lines as a local run', async () => {
    const crash = { line: 5, mode: 'exit' } as const;
    const localOut = join(dir, 'poison-local');
    const out = join(dir, 'poison-queue');
    // Both runs in this process, from the library: the coordinator's exit code for failed lines is the CLI's own
    // (test/cli/run.test.ts), and a crash ends a worker thread the same way in the CLI's pool and in this one.
    const local = await withWorkerFaults({ crash }, (workerFile) => runHere(localOut, { workers: 2, workerFile }));
    expect(local.status).toBe('done');
    // Two worker processes: the crash ends a thread, not its process, but with one process each retry waits for the
    // crashed shard's lock to lapse (seconds per attempt); the other process takes it at once.
    const workers = [new WorkerProcess(redis.url, cliFaults({ crash })), new WorkerProcess(redis.url, cliFaults({ crash }))];
    // Retries 10, 20 and 40 ms after each crash instead of the default 200, 400 and 800: the same four attempts.
    const run = await runHere(out, { workers: 0, queue: parseQueueUrl(redis.url), queueRetryMs: 10 });
    expect(run.status).toBe('done');
    expect(files(out)).toEqual(files(localOut));
    const errors = readFileSync(join(out, 'errors.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((l) => l.includes('"code":"E_WORKER"') && l.includes('crashed on all 4 attempts'))).toBe(true);
    expect(readReport(out).lines.failed).toBe(errors.length);
    expect(distributedOf(out).retried).toBeGreaterThanOrEqual(1);
    await Promise.all(workers.map((w) => w.stop()));
  }, 120_000);

  it('a Redis that cannot be reached at start is E_QUEUE with exit 2', async () => {
    const url = `redis://:${PASSWORD}@127.0.0.1:${await freePort()}`;
    // The worker and the coordinator, side by side, both through the CLI's main in this process: each gives up on its
    // own. (Every other test runs its workers as processes of the built CLI.)
    const [worker, run] = await Promise.all([
      coordinateHere(['worker', '--queue', url, '--threads', '1']),
      coordinateHere(runArgs(archive, join(dir, 'no-redis'), ['--workers', '0', '--queue', url])),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/E_QUEUE: cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/E_QUEUE: cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
  });

  it('a worker told to stop while Redis is away with a shard in flight stops without it after its grace, and exits 0', async () => {
    const away = await RedisServer.start(PASSWORD);
    const out = join(dir, 'worker-stop');
    try {
      // Shards of 2 s each: Redis goes while the worker holds one.
      const worker = new WorkerProcess(away.url, cliFaults({ shardDelayMs: 2000 }), ['--queue-grace-ms', '300']);
      await workersConnected(away.url, 1);
      const run = coordinateHere(runArgs(archive, out, ['--workers', '0', '--queue', away.url, '--queue-grace-ms', '300']));
      const client = new Redis(away.url, { maxRetriesPerRequest: 1 });
      try {
        while ((await client.keys('bull:*:active')).length === 0) await sleep(20);
      } finally {
        client.disconnect();
      }
      await away.stop();
      expect(await worker.stop()).toBe(0);
      expect(worker.stdout).toContain('Redis away for 0.3 s while stopping: stopping without it');
      expect((await run).code).toBe(2);
    } finally {
      await away.stop();
    }
  });

  // One slow worker process serves the three runs that lose a process or Redis: each starts from an idle worker that
  // waits for new runs, as a fresh one would, and the last test stops it (a worker process costs a node start and a
  // module load). No run above may have it connected: it would take their shards without their faults.
  describe('with one slow worker process throughout', () => {
    let worker: WorkerProcess;

    beforeAll(async () => {
      worker = new WorkerProcess(redis.url, SLOW);
      kept.add(worker);
      await workersConnected(redis.url, 1);
    });

    afterAll(async () => {
      kept.delete(worker);
      await killLeftoverWorkers();
    });

    it('a worker killed with -9 mid-run loses nothing: its shard is recovered as stalled and the bytes are the same', async () => {
      const out = join(dir, 'kill-worker');
      const victim = new WorkerProcess(redis.url, SLOW);
      await workersConnected(redis.url, 2);
      const running = coordinateHere(runArgs(archive, out, ['--workers', '0', '--queue', redis.url]));
      await victim.waitForShards(1);
      victim.kill('SIGKILL');
      const run = await running;
      expect(run.code).toBe(0);
      expect(files(out)).toEqual(expected);
      expect(distributedOf(out).stalledRecovered).toBeGreaterThanOrEqual(1);
    });

    it('a coordinator killed with -9 continues with --resume to the same bytes', async () => {
      const out = join(dir, 'kill-coordinator');
      // One worker process: a second would take shards too, and show nothing more of the coordinator's loss.
      const args = runArgs(archive, out, ['--workers', '0', '--queue', redis.url]);
      const killed = await coordinate(args, undefined, (_pid, kill) => {
        void (async () => {
          while (journaled(out) < 3) await sleep(10);
          kill('SIGKILL');
        })();
      });
      expect(killed.signal).toBe('SIGKILL');
      const resumed = await coordinateHere([...args, '--resume']);
      expect(resumed.code).toBe(0);
      expect(files(out)).toEqual(expected);
    });

    it('Redis stopped mid-run stops the run with E_QUEUE; restarted, --resume completes it to the same bytes', async () => {
      const out = join(dir, 'redis-lost');
      // One worker process: it loses Redis and reconnects as a second one would.
      const workers = [worker];
      // 0.3 s of grace (the default is 5): the test waits on it for real.
      const args = runArgs(archive, out, ['--workers', '0', '--queue', redis.url, '--queue-grace-ms', '300']);
      const running = coordinateHere(args);
      void (async () => {
        while (journaled(out) < 3) await sleep(10);
        await redis.stop();
      })();
      const lost = await within(30_000, 'the run that loses Redis', running, workers);
      expect(lost.code).toBe(2);
      expect(lost.stderr).toContain('E_QUEUE: lost the queue');
      expect(lost.stderr).toContain('for 0.3 s;');
      await redis.restart();
      await within(20_000, 'the worker reconnecting to the restarted Redis', workersConnected(redis.url, 1), workers);
      const resumed = await within(30_000, 'the resumed run', coordinateHere([...args, '--resume']), workers);
      expect(resumed.code).toBe(0);
      expect(files(out)).toEqual(expected);
      expect(await within(15_000, 'the worker stopping', Promise.all(workers.map((w) => w.stop())), workers)).toEqual([0]);
    }, 120_000);
  });
});
