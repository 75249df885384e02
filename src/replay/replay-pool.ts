import { Piscina } from 'piscina';
import { TcompactError } from '../errors.js';
import { workerEntry } from '../io/worker-entry.js';
import { IN_FLIGHT_PER_WORKER } from '../pipeline/job/capacity.js';
import { shareRankTable } from '../tokens/bpe-engines.js';
import type { ReplayOutcome, ReplaySettings, ReplayTask } from './replay-task.js';
import type { TranscriptReplay } from './transcript-replay.js';

/**
 * Replays transcripts on worker threads and hands the results back in input order, so a Simulation that accepts
 * them sums exactly what it would have summed replaying them itself. At most two transcripts per worker are in
 * flight: the archive is never held.
 */
export class ReplayPool {
  private readonly pool: Piscina;

  constructor(
    readonly workers: number,
    tokenizer: ReplaySettings['tokenizer'],
  ) {
    if (tokenizer.engine !== null) shareRankTable(tokenizer.name, tokenizer.engine);
    this.pool = new Piscina({ filename: workerEntry('replay-worker'), minThreads: workers, maxThreads: workers, idleTimeout: 60_000 });
  }

  /** Replays every item of `items` with `settings` and calls `accept` with each result, in the order of `items`. */
  async replayAll(settings: ReplaySettings, items: AsyncIterable<Omit<ReplayTask, 'settings'>>, accept: (replayed: TranscriptReplay) => void): Promise<void> {
    const inFlight: Promise<ReplayOutcome>[] = [];
    const settle = async () => {
      const outcome = await inFlight.shift()!;
      if (!outcome.ok) throw new TcompactError(outcome.error.code, outcome.error.message);
      accept(outcome.value);
    };
    try {
      for await (const item of items) {
        const pending = this.pool.run({ settings, ...item }) as Promise<ReplayOutcome>;
        // Awaited in order below; a later one that fails while an earlier one is awaited must not go unhandled.
        pending.catch(() => undefined);
        inFlight.push(pending);
        if (inFlight.length >= this.workers * IN_FLIGHT_PER_WORKER) await settle();
      }
      while (inFlight.length > 0) await settle();
    } catch (err) {
      // The tasks still running end before the caller may destroy the pool: Piscina throws, uncaught, on the answer
      // of a task it no longer knows.
      await Promise.allSettled(inFlight);
      throw err;
    }
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
