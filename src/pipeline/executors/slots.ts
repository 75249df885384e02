/**
 * A counting semaphore that bounds the shards in flight: the planner asks for a slot before it reads the next shard,
 * so a fast reader waits instead of filling memory.
 */
export class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves true once a slot is taken, or false as soon as `signal` aborts (no slot taken). */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(grant);
        if (i !== -1) this.waiters.splice(i, 1);
        resolve(false);
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
