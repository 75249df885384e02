import { setTimeout as delay } from 'node:timers/promises';

/**
 * Time as the queue and the limiter see it. Injected so tests drive waits with fake time instead of sleeping; the
 * per-request timeout is the one timer that stays real (it guards a real socket).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, at once for `ms <= 0`, and early (never rejecting) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => (ms > 0 && !signal?.aborted ? delay(ms, undefined, signal ? { signal } : undefined).catch(() => undefined) : Promise.resolve()),
};
