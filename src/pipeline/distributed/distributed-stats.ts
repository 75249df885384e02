/** report.json's `distributed` object: who did the work of a run that went through a queue. */
export interface DistributedReport {
  /** The run's queue name. */
  queue: string;
  /** The Redis URL, password replaced by `***`. */
  url: string;
  /** Worker processes (`host:pid`) that completed at least one shard of this run. */
  workersSeen: number;
  shardsPerWorker: Record<string, number>;
  /** Shards BullMQ's stalled-job check took back from a worker that stopped renewing its lock (killed, frozen). */
  stalledRecovered: number;
  /** Shards that needed more than one attempt (a worker crash on the shard). */
  retried: number;
}

/** Counts kept by the coordinator as results come back. */
export class DistributedStats {
  private readonly perWorker = new Map<string, number>();
  stalledRecovered = 0;
  retried = 0;

  constructor(
    private readonly queue: string,
    private readonly url: string,
  ) {}

  completedBy(worker: string): void {
    this.perWorker.set(worker, (this.perWorker.get(worker) ?? 0) + 1);
  }

  get workersSeen(): number {
    return this.perWorker.size;
  }

  report(): DistributedReport {
    const shardsPerWorker = Object.fromEntries([...this.perWorker].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return {
      queue: this.queue,
      url: this.url,
      workersSeen: this.perWorker.size,
      shardsPerWorker,
      stalledRecovered: this.stalledRecovered,
      retried: this.retried,
    };
  }
}
