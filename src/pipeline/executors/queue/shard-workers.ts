import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ShardPool } from '../shard-pool.js';
import { processShardJob } from './process-shard-job.js';
import { RUNS_KEY } from './queue-name.js';
import type { QueueUrl } from './queue-url.js';
import type { ShardJobData, ShardJobResult } from './shard-job.js';

/** How often a worker process looks for new runs in RUNS_KEY. */
const DISCOVER_INTERVAL_MS = 1000;

/** How long `close` waits for the workers of runs that ended to finish closing. */
const RETIRE_WAIT_MS = 5000;

interface ShardWorkersOptions {
  queue: QueueUrl;
  connection: Redis;
  pool: ShardPool;
  /** Shard jobs in flight per run (the pool queues what its threads cannot take at once). */
  concurrency: number;
  lockMs: number;
  /** One line per shard. */
  log: (line: string) => void;
  /** Serve only this run's queue (the coordinator's own threads); otherwise every run listed in RUNS_KEY. */
  only?: string;
}

/**
 * The BullMQ workers of one process: one per run it serves, all feeding the same Piscina pool. `close` takes no new
 * job, lets the jobs in flight finish and commit, and resolves when they have.
 */
export class ShardWorkers {
  private readonly workers = new Map<string, Worker<ShardJobData, ShardJobResult>>();
  /** Closing workers of runs that ended. */
  private readonly retiring = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  /** Shards this process finished, by outcome. */
  readonly counts = { ok: 0, failed: 0, crashed: 0 };

  constructor(private readonly options: ShardWorkersOptions) {}

  async start(): Promise<void> {
    if (this.options.only !== undefined) {
      this.serve(this.options.only);
      return;
    }
    await this.discover();
    const tick = (): void => {
      this.timer = setTimeout(() => void this.discover().finally(() => !this.closing && tick()), DISCOVER_INTERVAL_MS);
    };
    tick();
  }

  /** Queues served right now. */
  get serving(): string[] {
    return [...this.workers.keys()];
  }

  private async discover(): Promise<void> {
    let runs: string[];
    try {
      runs = await this.options.connection.smembers(RUNS_KEY);
    } catch {
      return; // Redis away: try again on the next tick; BullMQ's own workers reconnect by themselves.
    }
    if (this.closing) return;
    for (const name of runs) if (!this.workers.has(name)) this.serve(name);
    for (const [name, worker] of this.workers) {
      if (!runs.includes(name)) {
        this.workers.delete(name);
        this.retire(worker);
      }
    }
  }

  /**
   * Closes the worker of a run that ended without waiting for its jobs (their results are no longer awaited). A graceful
   * close first waits for the blocking connection to end, which after a Redis restart it may never do; the worker's
   * lock renewal timer, stopped only after that, would then keep the process alive.
   */
  private retire(worker: Worker<ShardJobData, ShardJobResult>): void {
    const closing = worker.close(true).catch(() => undefined);
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  private serve(name: string): void {
    const { options } = this;
    const worker = new Worker<ShardJobData, ShardJobResult>(name, (job) => this.process(name, job), {
      connection: options.connection,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: Math.max(1000, Math.round(options.lockMs / 2)),
      // A shard whose worker died is handed on, not failed: only crashes of the shard itself count as attempts.
      maxStalledCount: 1000,
    });
    worker.on('error', () => undefined);
    this.workers.set(name, worker);
  }

  private async process(run: string, job: Job<ShardJobData, ShardJobResult>): Promise<ShardJobResult> {
    const { shard } = job.data;
    const mb = ((shard.kind === 'range' ? shard.end - shard.start : shard.approxBytes) / 1e6).toFixed(2);
    const started = performance.now();
    const attempt = job.attemptsMade + 1;
    const line = (outcome: string): void =>
      this.options.log(`run ${run} shard ${shard.index} ${mb} MB ${Math.round(performance.now() - started)} ms attempt ${attempt} ${outcome}`);
    try {
      const result = await processShardJob(job.data, attempt, this.options.pool);
      this.counts[result.failed ? 'failed' : 'ok']++;
      line(result.failed ? 'failed (errors committed)' : 'ok');
      return result;
    } catch (err) {
      this.counts.crashed++;
      line(`crashed: ${this.options.queue.redact((err as Error).message)}`);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    await Promise.all([...this.workers.values()].map((w) => w.close()));
    this.workers.clear();
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.retiring), new Promise((resolve) => (waited = setTimeout(resolve, RETIRE_WAIT_MS)))]);
    clearTimeout(waited);
  }

  /** Stops at once without Redis: shards in flight are dropped (their locks expire and another worker takes them). */
  abandon(): void {
    this.closing = true;
    clearTimeout(this.timer);
    for (const w of this.workers.values()) {
      void w.close(true).catch(() => undefined);
      void w.disconnect().catch(() => undefined);
    }
    this.workers.clear();
  }
}
