import { TcompactError } from '../../errors.js';
import { failedShardOutput } from '../shard/failed-shard.js';
import type { Journal } from '../store/journal.js';
import type { PlannedShard } from '../plan/plan-shards.js';
import { type ShardDescriptor, type ShardOutput, describeShard, withInputHash } from '../shard/types.js';
import type { ShardHook } from './shard-hook.js';
import { commitShard } from '../store/shard-store.js';
import type { ExecutionCounts, ShardRun } from './executor.js';

interface SettleDeps {
  outDir: string;
  journal: Journal;
  /** A hard stop: shards in flight are dropped, not committed. */
  abort: AbortSignal;
  /** Main-thread work on a shard's output before it commits (the LLM stage). */
  afterShard?: ShardHook;
  execution: ExecutionCounts;
  /**
   * Takes the shard on from here: the run's ordered writer, which commits it itself (straight into the merged files when
   * it is next in line, so its bytes are written once) or, for a shard committed already (`stored`), merges it. Its
   * errors are the writer's own. Without it, the shard is committed to its own file and journaled here.
   */
  commit?: (shard: ShardDescriptor, output: ShardOutput, failed: boolean, stored: boolean) => Promise<void>;
}

/**
 * Takes a shard that ran to a committed state, whichever executor ran it: an error becomes its stand-in (every line of
 * the shard in errors.jsonl), the main-thread hook works on a shard that did not fail, and the shard is committed and
 * journaled (by `commit`, when given, unless the side that ran it committed it and nothing changed since). Resolves
 * with the output, or undefined when a hard stop dropped it. A commit that fails (disk full) rejects with E_IO and
 * nothing of the shard is kept.
 */
export async function settleShard(planned: PlannedShard, run: ShardRun, deps: SettleDeps): Promise<ShardOutput | undefined> {
  const { items } = planned;
  let shard = planned.shard;
  let output: ShardOutput;
  let failed: boolean;
  let committed: boolean;
  if (run.kind === 'error') {
    output = await failedShardOutput(shard, items, run.error);
    failed = true;
    committed = false;
  } else ({ output, standIn: failed, committed } = run);
  // Before the hook, which may make a new output: the hash is of the input the worker read.
  shard = withInputHash(shard, output);
  if (failed) deps.execution.failedShards++;
  if (deps.afterShard && !failed) {
    let staged: ShardOutput;
    try {
      staged = await deps.afterShard(output, shard, deps.abort);
    } catch (err) {
      if (deps.abort.aborted) return undefined;
      throw err;
    }
    if (staged !== output) committed = false;
    output = staged;
  }
  if (committed || !deps.commit) {
    try {
      if (!committed) await commitShard(deps.outDir, shard, output, failed);
      await deps.journal.append({ type: 'shard', shard, failed });
    } catch (err) {
      const reason = (err as Error).message;
      throw new TcompactError(
        'E_IO',
        `cannot commit shard ${shard.index} (${describeShard(shard)}): ${reason}; nothing of this shard was kept. Fix the cause and run again with --resume`,
        { cause: err },
      );
    }
  }
  await deps.commit?.(shard, output, failed, committed);
  return output;
}

/** What a lost task died of: Piscina's message, or the cause of an abort (a worker that failed to load). */
export function crashMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string }; code?: string };
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return e?.code ? `${e.code}: ${message}` : message;
}
