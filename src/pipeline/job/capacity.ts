import { availableParallelism } from 'node:os';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';

/**
 * Target shard size: a shard ends at the first line end past this many bytes. Big enough that per-task overhead (a
 * message each way, one fsync per commit) is noise, small enough that the last shards do not leave a core idle for long
 * and that the commit granularity of a resume stays fine (docs/performance.md).
 */
export const DEFAULT_SHARD_BYTES = 4 * 1024 * 1024;
/** Most items (transcripts, errors, skipped records) in one shard of adapter input. */
export const DEFAULT_MAX_ITEMS_PER_SHARD = 1000;
/** Heap limit of each worker: room for one line at the 64 MiB limit, parsed, compacted and serialized. */
export const DEFAULT_WORKER_HEAP_MB = 1024;
/** One try plus three retries on fresh workers. */
export const MAX_ATTEMPTS = 4;
/** Tasks in flight per worker: one running, one queued so a worker never waits for the main thread. */
export const IN_FLIGHT_PER_WORKER = 2;

export function defaultWorkers(): number {
  return availableParallelism();
}

export const DEFAULTS = {
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  shardBytes: DEFAULT_SHARD_BYTES,
  maxItemsPerShard: DEFAULT_MAX_ITEMS_PER_SHARD,
  workerHeapMb: DEFAULT_WORKER_HEAP_MB,
} as const;
