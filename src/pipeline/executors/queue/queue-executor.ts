import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { TcompactError } from '../../../errors.js';
import { IN_FLIGHT_PER_WORKER, MAX_ATTEMPTS } from '../../job/capacity.js';
import type { PlannedShard } from '../../plan/plan-shards.js';
import { type JobSettings, describeShard } from '../../shard/types.js';
import { readShard, shardPath } from '../../store/shard-store.js';
import type { ExecutionCounts, Executor, ShardRun } from '../executor.js';
import { ShardPool } from '../shard-pool.js';
import { DistributedStats } from './distributed-stats.js';
import { openConnection, probeQueue, watchConnection } from './queue-connection.js';
import { RUNS_KEY, queueNameFor } from './queue-name.js';
import type { QueueUrl } from './queue-url.js';
import { SHARD_JOB, type ShardJobData, type ShardJobResult, decodeJobError, encodeItems, shardJobId } from './shard-job.js';
import { DEFAULT_LOCK_MS, DEFAULT_QUEUE_GRACE_MS, DEFAULT_RETRY_BACKOFF_MS } from './queue-timing.js';
import { ShardWorkers } from './shard-workers.js';

/** Shards queued or running at once: enough to keep many machines busy, few enough that a stop waits little. */
const QUEUE_IN_FLIGHT = 64;
/**
 * How long one read of the queue's event stream blocks. BullMQ guards each read with a timer of this plus 1 s that
 * outlives a dropped connection, so after E_QUEUE the process could not exit before it fired (11 s at BullMQ's default).
 */
const EVENTS_BLOCK_MS = 1000;

interface QueueExecutorOptions {
  queue: QueueUrl;
  settingsHash: string;
  outDir: string;
  job: JobSettings;
  resume: boolean;
  abort: AbortSignal;
  execution: ExecutionCounts;
  /** How long Redis may be unreachable before the run stops with E_QUEUE. @default DEFAULT_QUEUE_GRACE_MS */
  graceMs?: number;
  /** First retry delay of a shard whose worker crashed, doubled on each attempt (validated by the run's plan). @default DEFAULT_RETRY_BACKOFF_MS */
  retryBackoffMs?: number;
  /** Worker threads of the coordinator's own process that take jobs too (0: only coordinate). */
  localWorkers: number;
  heapMb: number;
  workerFile?: string;
  /** Called once when Redis is lost for good. */
  onLost: (err: TcompactError) => void;
}

interface QueueExecutor extends Executor {
  readonly stats: DistributedStats;
}

/**
 * The coordinator's side of a distributed run: one BullMQ job per shard on the run's own queue, a job id per shard
 * index (so a resumed coordinator finds the jobs its predecessor added, finished or not), and each finished shard read
 * back from DIR (its worker committed it there) and checked against the checksum its worker reported.
 */
export async function startQueueExecutor(options: QueueExecutorOptions): Promise<QueueExecutor> {
  const { queue: url, execution } = options;
  const retryBackoffMs = options.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS;
  await probeQueue(url);
  const name = queueNameFor(options.settingsHash, options.outDir);
  const outDir = resolve(options.outDir);
  const connection = openConnection(url, 'tcompact-coordinator');
  const queue = new Queue<ShardJobData, ShardJobResult>(name, { connection });
  const eventsConnection = openConnection(url, 'tcompact-coordinator-events');
  const events = new QueueEvents(name, { connection: eventsConnection, blockingTimeout: EVENTS_BLOCK_MS });
  const stats = new DistributedStats(name, url.redacted);
  events.on('stalled', () => stats.stalledRecovered++);
  events.on('error', () => undefined);
  // Without a listener BullMQ prints each failed reconnect to stderr; a lost Redis is reported once, as E_QUEUE.
  queue.on('error', () => undefined);
  // Every shard in flight waits on these emitters (BullMQ's waitUntilFinished listens on both).
  queue.setMaxListeners(QUEUE_IN_FLIGHT * 2 + 10);
  events.setMaxListeners(QUEUE_IN_FLIGHT * 2 + 10);

  let lostError: TcompactError | undefined;
  const lostListeners = new Set<(err: TcompactError) => void>();
  const graceMs = options.graceMs ?? DEFAULT_QUEUE_GRACE_MS;
  const unwatch = watchConnection(connection, graceMs, () => {
    lostError = new TcompactError(
      'E_QUEUE',
      `lost the queue at ${url.redacted} for ${graceMs / 1000} s; the committed shards stay in ${options.outDir}: run the same command with --resume once Redis is back`,
    );
    for (const listener of lostListeners) listener(lostError);
    options.onLost(lostError);
  });

  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  if (!options.resume) await queue.obliterate({ force: true });
  await connection.sadd(RUNS_KEY, name);

  let pool: ShardPool | undefined;
  let local: ShardWorkers | undefined;
  if (options.localWorkers > 0) {
    pool = new ShardPool({ workers: options.localWorkers, heapMb: options.heapMb, workerFile: options.workerFile, abort: options.abort });
    local = new ShardWorkers({
      queue: url,
      connection,
      pool,
      concurrency: options.localWorkers * IN_FLIGHT_PER_WORKER,
      lockMs: DEFAULT_LOCK_MS,
      log: () => undefined,
      only: name,
    });
    await local.start();
  }

  /**
   * `work` on Redis, or E_QUEUE as soon as Redis is lost for good: a command sent while Redis is away waits for it
   * (ioredis queues it), and the run must stop after its grace, not then.
   */
  const untilLost = async <T>(work: Promise<T>): Promise<T> => {
    let onLost: ((err: TcompactError) => void) | undefined;
    const lost = new Promise<never>((_, reject) => {
      onLost = reject;
      if (lostError) reject(lostError);
    });
    lostListeners.add(onLost as (err: TcompactError) => void);
    try {
      return await Promise.race([work, lost]);
    } finally {
      lostListeners.delete(onLost as (err: TcompactError) => void);
    }
  };

  /** Settles with the job's result or its final failure reason; rejects with E_QUEUE when Redis is lost. */
  const finished = async (jobId: string, wait: Promise<ShardJobResult>): Promise<{ ok: true; result: ShardJobResult } | { ok: false; reason: string }> => {
    try {
      return await untilLost(wait.then((result) => ({ ok: true as const, result })));
    } catch (err) {
      if (TcompactError.isInstance(err)) throw err;
      return { ok: false, reason: url.redact((err as Error).message ?? `job ${jobId} failed`) };
    }
  };

  const run = async ({ shard, items }: PlannedShard): Promise<ShardRun | undefined> => {
    if (options.abort.aborted) return undefined;
    const jobId = shardJobId(shard.index);
    if (options.resume) {
      // A shard that failed for good in an earlier attempt of this run is processed again, as a local resume does.
      const old = await untilLost(queue.getJob(jobId));
      if (old && (await untilLost(old.isFailed()))) await untilLost(old.remove());
    }
    const data: ShardJobData = { shard, job: options.job, outDir, cwd: process.cwd() };
    if (items) data.itemsGz = encodeItems(items);
    const job = await untilLost(queue.add(SHARD_JOB, data, { jobId, attempts: MAX_ATTEMPTS, backoff: { type: 'exponential', delay: retryBackoffMs } }));
    const settled = await finished(jobId, job.waitUntilFinished(events));
    if (options.abort.aborted) return undefined;

    if (!settled.ok) {
      const error = decodeJobError(settled.reason);
      if (error?.code === 'E_IO') throw new TcompactError('E_IO', error.message);
      stats.retried++;
      execution.retriedShards++;
      const reason = error ? `${error.code}: ${error.message}` : settled.reason;
      return {
        kind: 'error',
        error: { code: 'E_WORKER', message: `the worker crashed on all ${MAX_ATTEMPTS} attempts at this shard (${describeShard(shard)}): ${reason}` },
      };
    }
    const { result } = settled;
    stats.completedBy(result.worker);
    if (result.attempt > 1) {
      stats.retried++;
      execution.retriedShards++;
    }
    const stored = await readShard(options.outDir, shard.index);
    const body = Buffer.concat([stored.transcripts, stored.errors, stored.refs]);
    const sha256 = createHash('sha256').update(body).digest('hex');
    if (sha256 !== result.sha256) {
      throw new TcompactError(
        'E_IO',
        `shard ${shard.index}: ${shardPath(options.outDir, shard.index)} is not the file worker ${result.worker} committed (checksum differs): DIR must be the same shared volume on every machine`,
      );
    }
    const output: ShardRun & { kind: 'output' } = {
      kind: 'output',
      output: { body, sizes: result.sizes, report: stored.report },
      standIn: result.failed,
      committed: true,
    };
    if (result.handedOn) output.output.handedOn = result.handedOn;
    if (result.inputSha256 !== undefined) output.output.inputSha256 = result.inputSha256;
    return output;
  };

  let closed = false;
  return {
    run,
    inFlight: QUEUE_IN_FLIGHT,
    stats,
    report: () => stats.report(),
    async finish() {
      await connection.srem(RUNS_KEY, name);
      await queue.obliterate({ force: true });
    },
    async close() {
      if (closed) return;
      closed = true;
      unwatch();
      // A lost Redis would make a graceful close wait forever: then the connections are just dropped.
      if (lostError) {
        connection.disconnect();
        eventsConnection.disconnect();
        void local?.close().catch(() => undefined);
        void events.close().catch(() => undefined);
        void queue.close().catch(() => undefined);
        await pool?.destroy();
        return;
      }
      await local?.close();
      await pool?.destroy();
      await events.close();
      await queue.close();
      eventsConnection.disconnect();
      await connection.quit();
    },
  };
}
