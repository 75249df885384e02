import { outputBuffers } from '../shard/encoding.js';
import type { ShardOutcome, ShardTask } from '../shard/types.js';
import { movable } from './movable.js';
import { runShard } from './run-shard.js';

/**
 * The worker's task function: runs the shard and hands its output's buffers to the main thread as a transfer (the
 * ArrayBuffers move, nothing is copied). Errors come back as data, like every outcome.
 */
export async function runShardTask(task: ShardTask): Promise<ShardOutcome> {
  const outcome = await runShard(task);
  if (!outcome.ok) return outcome;
  return movable(outcome, outputBuffers(outcome.value));
}
