import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ShardOutcome, ShardTask } from '../shard/types.js';
import { runShard } from './run-shard.js';

/**
 * The worker's task function: runs the shard and hands its output buffer to the main thread as a transfer (the
 * ArrayBuffer moves, nothing is copied). Errors come back as data, like every outcome.
 */
export async function runShardTask(task: ShardTask): Promise<ShardOutcome> {
  const outcome = await runShard(task);
  if (!outcome.ok) return outcome;
  const movable = { [transferableSymbol]: [outcome.value.body.buffer], [valueSymbol]: outcome };
  return move(movable as never) as unknown as ShardOutcome;
}
