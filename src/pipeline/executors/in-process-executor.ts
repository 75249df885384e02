import type { PlannedShard } from '../plan/plan-shards.js';
import type { JobSettings } from '../shard/types.js';
import { runShard } from '../worker/run-shard.js';
import type { Executor, ShardRun } from './executor.js';

/**
 * Shards in this thread, one at a time: for `compact`, small inputs and library callers that want no threads. The
 * worker's own code runs here, so the output is the pool's byte for byte; a throw cannot lose a worker, so nothing is
 * retried.
 */
export function createInProcessExecutor(job: JobSettings, abort: AbortSignal): Executor {
  return {
    inFlight: 1,
    async run({ shard, items }: PlannedShard): Promise<ShardRun | undefined> {
      if (abort.aborted) return undefined;
      const outcome = await runShard({ shard, items, job, attempt: 1 });
      return outcome.ok ? { kind: 'output', output: outcome.value, standIn: false, committed: false } : { kind: 'error', error: outcome.error };
    },
    close: async () => undefined,
  };
}
