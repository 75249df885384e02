import type { Batcher } from './batcher.js';

interface GatherAndSettleOptions {
  /** The batchers whose requests this round sends and waits for. */
  batchers: readonly Batcher[];
  /** The batchers that gather during the pass (a pass whose other requests wait for a later round). @default batchers */
  gathering?: readonly Batcher[];
  /** One pass over the work with every batcher gathering; false when it was stopped before covering all of it. */
  pass: () => Promise<boolean>;
  /** Ctrl-C: stop gathering or waiting; batches already created keep running. */
  stop: AbortSignal;
  /** Told how many requests went out as batches, before the wait. */
  onSubmitted?: (requests: number) => void;
}

/**
 * The Batch API phase of a job, one round: the work runs once with every batcher gathering (each request no cache or
 * collected result answers is deferred, none is sent online, the output is dropped), then the deferred requests are
 * sent as batches (journaled before any wait) and waited for until every batch has ended and its results are collected.
 * The pass that follows finds its answers by cache key. Resolves false when stopped: `--resume` picks the batches up.
 */
export async function gatherAndSettle(o: GatherAndSettleOptions): Promise<boolean> {
  const gather = (o.gathering ?? o.batchers).reduceRight<() => Promise<boolean>>((inner, b) => () => b.gatherDuring(inner), o.pass);
  if (!(await gather())) return false;
  for (const batcher of o.batchers) {
    const sent = await batcher.submit();
    if (sent > 0) o.onSubmitted?.(sent);
    if (!(await batcher.settle(o.stop))) return false;
  }
  return true;
}
