import type { Clock } from '../../src/llm/clock.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Discrete-event fake time: `sleep` registers a timer, and `runUntil` fires timers in time order, letting every
 * promise chain settle between them. Nothing real is awaited, so a simulated hour runs in milliseconds.
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = { at: this.t + ms, seq: this.seq++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Fires timers until `done` settles; throws if it cannot settle (no timers left). */
  async runUntil<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    const result = done.finally(() => {
      settled = true;
    });
    for (;;) {
      await turn();
      await turn();
      if (settled) return result;
      if (this.timers.length === 0) throw new Error('VirtualClock: nothing left to run, but the work is not done');
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.t = next.at;
      next.resolve();
    }
  }
}

/**
 * Real time plus the waits asked for: `sleep` returns at once and moves `now` forward by the wait, and every wait is
 * recorded. For tests against the loopback server, where requests take real (short) time but waits must not.
 */
export class SkippingClock implements Clock {
  private offset = 0;
  readonly sleeps: number[] = [];

  now(): number {
    return Date.now() + this.offset;
  }

  async sleep(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.sleeps.push(ms);
    this.offset += ms;
    await turn();
  }

  get skippedMs(): number {
    return this.offset;
  }
}
