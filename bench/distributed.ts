import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisServer, redisServerAvailable } from './lib/redis-server.js';
import { CLI_SOURCES, ensureBuiltCli } from './lib/cli.js';
import { syntheticArchive } from './lib/corpora.js';
import { CLI, ROOT } from './lib/paths.js';
import { pipelineStrategies } from './lib/tcompact-steps.js';
import type { BenchContext, Benchmark, BenchOutput, Cell, Ratio } from './lib/results.js';

const GNU_TIME = '/usr/bin/time';

interface Timed {
  wallMs: number;
  /** CPU seconds (user + system) of the process, threads included. */
  cpuSeconds: number | null;
  exitCode: number | null;
  stderr: string;
}

/** Runs the CLI under GNU time (wall from spawn to exit; CPU of the process). */
async function timedCli(args: string[], tmpDir: string): Promise<Timed> {
  const timeFile = join(tmpDir, `dist-time-${process.pid}-${Date.now()}.txt`);
  const useTime = existsSync(GNU_TIME);
  const [cmd, argv] = useTime ? [GNU_TIME, ['-f', '%U %S', '-o', timeFile, process.execPath, CLI, ...args]] : [process.execPath, [CLI, ...args]];
  const started = performance.now();
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - started;
  let cpuSeconds: number | null = null;
  if (useTime && existsSync(timeFile)) {
    const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    cpuSeconds = u + s;
    rmSync(timeFile, { force: true });
  }
  return { wallMs, cpuSeconds, exitCode, stderr };
}

/** `tcompact worker` processes, started and warm (pool up, serving) before a timed run. */
async function startWorkers(url: string, count: number, threads: number): Promise<ChildProcess[]> {
  const workers: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, [CLI, 'worker', '--queue', url, '--threads', String(threads)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    while (!out.includes('serving')) await sleep(20);
    workers.push(child);
  }
  return workers;
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  const closed = workers.map((w) => new Promise((resolve) => w.once('close', resolve)));
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(closed);
}

/** An archive of `count` one-message transcripts (~70 bytes a line): with --shard-bytes 1024, many trivial shards. */
function tinyArchive(tmpDir: string, count: number): string {
  const file = join(tmpDir, `tiny-${count}.jsonl`);
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ id: `tiny-${i}`, messages: [{ role: 'user', content: `question ${i}` }] }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export const distributedBench: Benchmark = {
  name: 'distributed',
  entry: import.meta.url,
  alsoRuns: CLI_SOURCES,
  title: 'Distributed: through BullMQ + Redis vs one process, and the coordinator ceiling',
  description:
    'Same machine, same run. (1) The synthetic archive with the end-to-end strategies: `tcompact run --workers 2` (one process, 2 ' +
    'threads) against a coordinator `run --workers 0 --queue redis://127.0.0.1:PORT` fed to 2 `tcompact worker --threads 1` ' +
    'processes, started and warm before the clock starts; wall is the coordinator from spawn to exit. The queue overhead ' +
    'is (queue wall - local wall) / local wall. (2) The coordinator ceiling: an archive of one-message transcripts cut into ' +
    'trivially small shards (--shard-bytes 1024), 2 workers: shards per second end to end, and per second of coordinator CPU (what one ' +
    "coordinator could enqueue, track and merge if workers were infinitely many); merge MB/s is input MB per coordinator CPU second on the large archive. redis-server is Debian's, on loopback, persistence off.",
  async run(ctx: BenchContext): Promise<BenchOutput> {
    if (!redisServerAvailable())
      return { params: {}, results: null, tables: [], pending: ['not available: redis-server is not installed (apt-get install redis-server)'] };
    await ensureBuiltCli(ctx.log);
    const bytes = ctx.quick ? 50_000_000 : 300_000_000;
    const repeats = ctx.quick ? 1 : 3;
    const file = await syntheticArchive(ctx.tmpDir, 1, bytes);
    const tinyLines = ctx.quick ? 20_000 : 60_000;
    const small = tinyArchive(ctx.tmpDir, tinyLines);
    const chosen = await pipelineStrategies();
    const strategies = chosen.strategies.flatMap((name) => ['--strategy', name]);
    const redis = await RedisServer.start('bench');
    const out = join(ctx.tmpDir, 'dist-out');
    const mb = bytes / 1e6;
    const local: Timed[] = [];
    const queued: Timed[] = [];
    let tiny: Timed | undefined;
    let tinyShards = 0;
    try {
      for (let i = 0; i < repeats; i++) {
        rmSync(out, { recursive: true, force: true });
        ctx.log(`distributed: local --workers 2 (${i + 1}/${repeats})`);
        local.push(await timedCli(['run', file, '--out', out, ...strategies, '--workers', '2', '--quiet'], ctx.tmpDir));
        rmSync(out, { recursive: true, force: true });
        ctx.log(`distributed: 2 worker processes x 1 thread through Redis (${i + 1}/${repeats})`);
        const workers = await startWorkers(redis.url, 2, 1);
        queued.push(await timedCli(['run', file, '--out', out, ...strategies, '--workers', '0', '--queue', redis.url, '--quiet'], ctx.tmpDir));
        await stopWorkers(workers);
      }
      rmSync(out, { recursive: true, force: true });
      ctx.log('distributed: coordinator ceiling, 1 KiB shards');
      const workers = await startWorkers(redis.url, 2, 1);
      tiny = await timedCli(
        ['run', small, '--out', out, ...strategies, '--workers', '0', '--queue', redis.url, '--shard-bytes', '1024', '--quiet'],
        ctx.tmpDir,
      );
      await stopWorkers(workers);
      if (existsSync(join(out, 'report.json'))) tinyShards = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).execution.shards;
    } finally {
      await redis.stop();
      rmSync(out, { recursive: true, force: true });
      rmSync(small, { force: true });
    }
    for (const t of [...local, ...queued, tiny]) if (t && t.exitCode !== 0) throw new Error(`a run exited with ${t.exitCode}: ${t.stderr.slice(0, 1000)}`);
    const localMs = median(local.map((t) => t.wallMs));
    const queuedMs = median(queued.map((t) => t.wallMs));
    const overhead = (queuedMs - localMs) / localMs;
    const coordinatorCpu = median(queued.map((t) => t.cpuSeconds ?? Number.NaN));
    const mergeMbPerCpuSecond = mb / coordinatorCpu;
    const localMbPerSec = mb / (localMs / 1000);
    const tinyWallS = (tiny?.wallMs ?? Number.NaN) / 1000;
    const shardsPerSecond = tinyShards / tinyWallS;
    const shardsPerCpuSecond = tinyShards / (tiny?.cpuSeconds ?? Number.NaN);
    const machinesByMerge = mergeMbPerCpuSecond / localMbPerSec;
    const machinesByShards = (shardsPerCpuSecond * 4) / localMbPerSec; // at the default 4 MiB shards (4.19 MB)
    const results = {
      archiveMB: mb,
      localWallS: localMs / 1000,
      queuedWallS: queuedMs / 1000,
      overhead,
      localMbPerSec,
      coordinatorCpuSeconds: coordinatorCpu,
      mergeMbPerCpuSecond,
      tinyShards,
      tinyWallS,
      shardsPerSecond,
      shardsPerCpuSecond,
      machinesOneCoordinatorFeeds: Math.floor(Math.min(machinesByMerge, machinesByShards)),
    };
    const rows: Cell[][] = [
      [`local: 1 process x 2 threads (${mb} MB)`, localMs / 1000, localMbPerSec, ''],
      [`queue: 2 worker processes x 1 thread (${mb} MB)`, queuedMs / 1000, mb / (queuedMs / 1000), coordinatorCpu],
      [`coordinator ceiling: ${tinyShards} shards of 1 KiB`, tinyWallS, '', tiny?.cpuSeconds ?? null],
    ];
    const ratios: Ratio[] = [
      { name: 'queue overhead: (queue wall - local wall) / local wall', value: overhead * 100, unit: '%', target: '<= 10', met: overhead <= 0.1 },
    ];
    return {
      params: { archiveBytes: bytes, repeats, strategies: chosen.strategies, tinyLines, file: file.replace(`${ROOT}/`, '') },
      results,
      ratios,
      tables: [
        {
          title: `Distributed on the same machine (${repeats === 1 ? 'one run each' : `median of ${repeats} runs`})`,
          columns: ['variant', 'wall s', 'MB/s', 'coordinator CPU s'],
          rows,
          notes: [
            `Queue overhead: ${(overhead * 100).toFixed(1)}% of wall time (target <= 10%).`,
            `Coordinator ceiling: ${shardsPerSecond.toFixed(0)} shards/s end to end with 2 workers, ${shardsPerCpuSecond.toFixed(0)} shards per coordinator CPU second; merge ${mergeMbPerCpuSecond.toFixed(0)} MB of input per coordinator CPU second.`,
            `At ${localMbPerSec.toFixed(1)} MB/s per 2-core machine, one coordinator feeds about ${results.machinesOneCoordinatorFeeds} machines (the lower of merge MB/s and shards/s x 4 MB default shards, over per-machine MB/s).`,
          ],
          headline: true,
        },
      ],
    };
  },
};
