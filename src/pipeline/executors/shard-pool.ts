import { Piscina } from 'piscina';
import { workerEntry } from '../../io/worker-entry.js';
import type { ShardOutcome, ShardTask } from '../shard/types.js';

const YOUNG_GENERATION_MB = 16;

interface PoolOptions {
  workers: number;
  /** Heap limit of each worker (V8 old generation); a worker over it dies alone, its task fails, the process lives. */
  heapMb: number;
  /** TEST-ONLY: another worker entry (fixtures that crash); defaults to the built compact worker. */
  workerFile?: string;
  /** Aborts every task in flight (a hard stop); they reject and their shards are not committed. */
  abort?: AbortSignal;
}

/**
 * The Piscina pool that runs shard tasks. A worker that exits, throws outside its task or runs out of heap rejects only
 * its own task (Piscina replaces the worker). One case Piscina does not settle: a worker that dies while no task is bound
 * to it, e.g. failing to load, leaves queued tasks waiting forever, so such a pool error aborts the tasks in flight and
 * lets the caller's retry logic decide.
 */
export class ShardPool {
  private readonly pool: Piscina;
  private readonly inFlight = new Set<AbortController>();

  constructor(options: PoolOptions) {
    this.pool = new Piscina({
      filename: options.workerFile ?? workerEntry('compact-worker'),
      // Threads start as tasks come (Piscina starts one for each task queued while none is free, up to maxThreads): a run
      // of one shard starts one thread, and a large run queues its first tasks at once and starts them all together.
      minThreads: 0,
      maxThreads: options.workers,
      idleTimeout: 60_000,
      // A 16 MB young generation (V8's default is larger) keeps each worker's peak RSS down at no measured cost in speed.
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.pool.on('error', (err: unknown) => this.abortAll(err));
    this.abort = options.abort;
    this.abort?.addEventListener('abort', () => this.abortAll(this.abort?.reason), { once: true });
  }

  private readonly abort: AbortSignal | undefined;

  private abortAll(reason: unknown): void {
    for (const controller of this.inFlight) controller.abort(reason);
  }

  /** Runs a task; rejects when the worker died (the task is lost) or the pool's abort signal fired. */
  async run(task: ShardTask): Promise<ShardOutcome> {
    const controller = new AbortController();
    if (this.abort?.aborted) controller.abort(this.abort.reason);
    this.inFlight.add(controller);
    try {
      return (await this.pool.run(task, { signal: controller.signal })) as ShardOutcome;
    } finally {
      this.inFlight.delete(controller);
    }
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
