import type { DistributedReport } from '../../sink/run-report.js';

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
