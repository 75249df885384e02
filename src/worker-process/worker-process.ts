import { ShardPool } from '../pipeline/executors/shard-pool.js';
import { openConnection, probeQueue } from '../pipeline/executors/queue/queue-connection.js';
import type { QueueUrl } from '../pipeline/executors/queue/queue-url.js';
import { ShardWorkers } from '../pipeline/executors/queue/shard-workers.js';

interface WorkerProcessOptions {
  queue: QueueUrl;
  threads: number;
  concurrency: number;
  heapMb: number;
  lockMs: number;
  log: (line: string) => void;
  /** First abort: take no new shard, finish those in flight, then resolve. */
  stop: AbortSignal;
}

/**
 * `tcompact worker`: serves every run listed in Redis on one Piscina pool until `stop`, then finishes the shards in
 * flight and resolves with how many shards it did. E_QUEUE when Redis cannot be reached at start; later losses are
 * waited out (the connection reconnects by itself).
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
  await workers.close();
  await pool.destroy();
  connection.disconnect();
  return workers.counts;
}
