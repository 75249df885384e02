import { ShardPool } from '../pipeline/executors/shard-pool.js';
import { openConnection, probeQueue, watchConnection } from '../pipeline/executors/queue/queue-connection.js';
import type { QueueUrl } from '../pipeline/executors/queue/queue-url.js';
import { ShardWorkers } from '../pipeline/executors/queue/shard-workers.js';

interface WorkerProcessOptions {
  queue: QueueUrl;
  threads: number;
  concurrency: number;
  heapMb: number;
  lockMs: number;
  /** How long Redis may be away while stopping before the process stops without it. */
  graceMs: number;
  log: (line: string) => void;
  /** First abort: take no new shard, finish those in flight, then resolve. */
  stop: AbortSignal;
}

/**
 * `tcompact worker`: serves every run listed in Redis on one Piscina pool until `stop`, then finishes the shards in
 * flight and resolves with how many shards it did. E_QUEUE when Redis cannot be reached at start; later losses are
 * waited out (the connection reconnects by itself), except while stopping: a stop waits for Redis `graceMs` at most,
 * since finishing the shards in flight needs it, and a shard left unfinished goes back to the queue when its lock
 * expires.
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<{ ok: number; failed: number; crashed: number }> {
  await probeQueue(options.queue);
  const connection = openConnection(options.queue, 'tcompact-worker');
  const pool = new ShardPool({ workers: options.threads, heapMb: options.heapMb });
  const workers = new ShardWorkers({ ...options, connection, pool });
  await workers.start();
  options.log(`serving ${options.queue.redacted} with ${options.threads} threads, ${options.concurrency} shards in flight per run`);
  await new Promise<void>((resolve) => {
    if (options.stop.aborted) resolve();
    options.stop.addEventListener('abort', () => resolve(), { once: true });
  });
  options.log('stopping: finishing the shards in flight, taking no new ones');
  let unwatch = (): void => undefined;
  let away: NodeJS.Timeout | undefined;
  const lost = new Promise<'lost'>((resolve) => {
    unwatch = watchConnection(connection, options.graceMs, () => resolve('lost'));
    // Already away when the stop came: the watch saw its `close` before it started.
    if (connection.status !== 'ready') away = setTimeout(() => resolve('lost'), options.graceMs);
  });
  const closed = await Promise.race([workers.close().then(() => 'closed' as const), lost]);
  unwatch();
  clearTimeout(away);
  if (closed === 'lost') {
    workers.abandon();
    options.log(
      `Redis away for ${options.graceMs / 1000} s while stopping: stopping without it; shards in flight go back to the queue when their locks expire`,
    );
  }
  connection.disconnect();
  await pool.destroy();
  return { ...workers.counts };
}
