import type { ErrorInfo } from '../../errors.js';
import type { PlannedShard } from '../plan/plan-shards.js';
import type { ShardOutput } from '../shard/types.js';
import type { DistributedReport } from '../sink/run-report.js';

/**
 * What running a shard gave. `output` is the shard's output: its own, or an error stand-in that the side that ran it
 * made already (`standIn`), and maybe committed already (`committed`: a remote worker writes the shard file itself).
 * `error` is an outcome with no output: the settling step makes its stand-in. Errors are data here, never thrown:
 * they cross threads and machines.
 */
export type ShardRun = { kind: 'output'; output: ShardOutput; standIn: boolean; committed: boolean } | { kind: 'error'; error: ErrorInfo };

export interface ExecutionCounts {
  shards: number;
  reusedShards: number;
  retriedShards: number;
  failedShards: number;
}

/**
 * Where shards run: in this thread, on the worker pool, or on a BullMQ queue served by `tcompact worker` processes.
 * An executor only runs; settling (stand-in, LLM stage, commit, journal) is the same for all (settle-shard.ts).
 */
export interface Executor {
  /** Shards in flight at once that keep this executor busy. */
  readonly inFlight: number;
  /** Runs one shard, retrying crashes; undefined when a hard stop dropped it. */
  run(planned: PlannedShard): Promise<ShardRun | undefined>;
  /** Who did the work, for report.json (queue runs only). */
  report?(): DistributedReport;
  /** The run completed: forget what it left outside DIR (a queue in Redis). */
  finish?(): Promise<void>;
  close(): Promise<void>;
}
