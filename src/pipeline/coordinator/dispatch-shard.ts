import { type ErrorInfo, TcompactError } from '../../errors.js';
import { failedShardOutput } from '../shard/failed-shard.js';
import type { Journal } from '../store/journal.js';
import type { PlannedShard } from '../plan/plan-shards.js';
import { MAX_ATTEMPTS } from './run-options.js';
import { type JobSettings, type ShardOutcome, type ShardOutput, describeShard } from '../shard/types.js';
import type { ShardHook } from './shard-hook.js';
import { commitShard } from '../store/shard-store.js';
import type { ShardPool } from './worker-pool.js';

export interface ExecutionCounts {
  shards: number;
  reusedShards: number;
  retriedShards: number;
  failedShards: number;
}

export interface ShardExecutorDeps {
  outDir: string;
  pool: ShardPool;
  journal: Journal;
  job: JobSettings;
  /** A hard stop: shards in flight are dropped, not committed. */
  abort: AbortSignal;
  afterShard?: ShardHook;
  execution: ExecutionCounts;
}

/**
 * Takes one shard to a committed state: runs it on the pool, on a fresh worker again after a crash (MAX_ATTEMPTS in
 * all), stands in an E_WORKER output for a shard that crashed on every attempt, lets the main-thread hook (LLM) work on
 * it, commits its file and journals it. Resolves with the committed output, or undefined when a hard stop dropped it.
 * A commit that fails (disk full) rejects with E_IO and nothing of the shard is kept.
 */
export function createShardExecutor(deps: ShardExecutorDeps): (planned: PlannedShard) => Promise<ShardOutput | undefined> {
  const { pool, job, abort, execution } = deps;
  return async ({ shard, items }) => {
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
    let output: ShardOutput;
    let failed = false;
    if (outcome?.ok) output = outcome.value;
    else {
      const error: ErrorInfo = outcome
        ? outcome.error
        : { code: 'E_WORKER', message: `the worker crashed on all ${MAX_ATTEMPTS} attempts at this shard (${describeShard(shard)}): ${lastError}` };
      output = await failedShardOutput(shard, items, error);
      failed = true;
      execution.failedShards++;
    }
    if (deps.afterShard && !failed) {
      try {
        output = await deps.afterShard(output, shard, abort);
      } catch (err) {
        if (abort.aborted) return undefined;
        throw err;
      }
    }
    try {
      await commitShard(deps.outDir, shard, output, failed);
      await deps.journal.append({ type: 'shard', shard, failed });
    } catch (err) {
      const reason = (err as Error).message;
      throw new TcompactError(
        'E_IO',
        `cannot commit shard ${shard.index} (${describeShard(shard)}): ${reason}; nothing of this shard was kept. Fix the cause and run again with --resume`,
        { cause: err },
      );
    }
    return output;
  };
}

/** What a lost task died of: Piscina's message, or the cause of an abort (a worker that failed to load). */
export function crashMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string }; code?: string };
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return e?.code ? `${e.code}: ${message}` : message;
}
