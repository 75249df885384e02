import type { PlannedShard } from '../plan/plan-shards.js';
import { IN_FLIGHT_PER_WORKER, MAX_ATTEMPTS } from '../job/capacity.js';
import { type JobSettings, type ShardOutcome, describeShard } from '../shard/types.js';
import type { ExecutionCounts, Executor, ShardRun } from './executor.js';
import { crashMessage } from './settle-shard.js';
import { ShardPool } from './shard-pool.js';
import { shareRankTable } from '../../tokens/bpe-engines.js';

interface PoolExecutorOptions {
  workers: number;
  heapMb: number;
  job: JobSettings;
  /** A hard stop: tasks in flight are aborted and their shards dropped. */
  abort: AbortSignal;
  execution: ExecutionCounts;
  /** Another worker entry (test fixtures that crash). */
  workerFile?: string;
}

/** Shards on this process's Piscina pool: a crashed task runs again on a fresh worker, MAX_ATTEMPTS in all. */
export function createPoolExecutor(options: PoolExecutorOptions): Executor & { readonly pool: ShardPool } {
  const { job, abort, execution } = options;
  // Before the pool starts its workers: they inherit the table instead of each loading it.
  shareRankTable(job.config.tokenizer, job.config.tokenizerEngine);
  const pool = new ShardPool({ workers: options.workers, heapMb: options.heapMb, workerFile: options.workerFile, abort });
  return {
    pool,
    inFlight: options.workers * IN_FLIGHT_PER_WORKER,
    async run({ shard, items }: PlannedShard): Promise<ShardRun | undefined> {
      let outcome: ShardOutcome | undefined;
      let lastError = '';
      for (let attempt = 1; attempt <= MAX_ATTEMPTS && outcome === undefined; attempt++) {
        if (abort.aborted) return undefined;
        if (attempt === 2) execution.retriedShards++;
        try {
          outcome = await pool.run({ shard, items, job, attempt });
        } catch (err) {
          if (abort.aborted) return undefined;
          lastError = crashMessage(err);
        }
      }
      if (outcome?.ok) return { kind: 'output', output: outcome.value, standIn: false, committed: false };
      if (outcome) return { kind: 'error', error: outcome.error };
      return {
        kind: 'error',
        error: { code: 'E_WORKER', message: `the worker crashed on all ${MAX_ATTEMPTS} attempts at this shard (${describeShard(shard)}): ${lastError}` },
      };
    },
    close: () => pool.destroy(),
  };
}
