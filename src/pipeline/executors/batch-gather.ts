import type { Batcher } from '../../llm/batcher.js';
import { gatherAndSettle } from '../../llm/batch-phase.js';
import type { PlannedShard } from '../plan/plan-shards.js';
import type { JournalState } from '../store/journal.js';
import type { ShardHook } from './shard-hook.js';
import { Slots } from './slots.js';
import type { Executor } from './executor.js';

/**
 * Gather passes at most: after the first, one runs only when a batch refused prompts as too long (the steps then ask
 * smaller ones); what is still unanswered after the last goes to the online queue.
 */
const MAX_BATCH_ROUNDS = 4;

interface BatchGatherOptions {
  batcher: Batcher;
  /** `--batch-cancel`: cancel the outstanding batches, collect what they answered, and gather nothing new. */
  cancel: boolean;
  /** A fresh plan of the run's shards (each pass reads the inputs again). */
  plan: () => AsyncIterable<PlannedShard>;
  /** Shards an earlier run committed: they need no answer. */
  reusable: JournalState['shards'];
  executor: Executor;
  /** The LLM stage; while the batcher gathers, its steps defer their requests and their output is dropped. */
  stage: ShardHook;
  /** Ctrl-C: stop gathering or waiting; batches already created keep running. */
  stop: AbortSignal;
  abort: AbortSignal;
}

/**
 * The Batch API phase of a run, before the pass that commits shards: gather-and-settle rounds over the shards, run by
 * the executor and the LLM stage. Resolves false when stopped: nothing is committed, and `--resume` picks the batches up.
 */
export async function gatherBatches(o: BatchGatherOptions): Promise<boolean> {
  if (o.cancel) return o.batcher.settle(o.stop, { cancel: true });
  for (let round = 1; ; round++) {
    if (!(await gatherAndSettle({ batchers: [o.batcher], pass: () => gatherPass(o), stop: o.stop }))) return false;
    if (o.batcher.takeContextRefusals() === 0 || round >= MAX_BATCH_ROUNDS) return true;
  }
}

/** One pass over the shards whose output is dropped; true when it covered every shard. */
async function gatherPass(o: BatchGatherOptions): Promise<boolean> {
  const slots = new Slots(o.executor.inFlight);
  const running = new Set<Promise<void>>();
  let failure: unknown;
  for await (const planned of o.plan()) {
    const { shard } = planned;
    if (o.stop.aborted || failure !== undefined) break;
    const prior = o.reusable.get(shard.index);
    if (prior && !prior.failed) continue;
    if (!(await slots.acquire(o.stop))) break;
    const task = (async () => {
      // A shard that fails here fails again in the committing pass, which reports it; it has no request to gather.
      const ran = await o.executor.run(planned).catch(() => undefined);
      if (ran?.kind === 'output' && !ran.standIn) await o.stage(ran.output, shard, o.abort);
    })()
      .catch((err: unknown) => {
        if (!o.abort.aborted) failure ??= err;
      })
      .finally(() => {
        slots.release();
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all([...running]);
  if (failure !== undefined) throw failure;
  return !o.stop.aborted;
}
