import { readFile } from '../../formats/read-inputs.js';
import type { FormatName, InputItem } from '../../formats/types.js';
import type { InputSource } from './input-sources.js';
import { planItemShards } from './plan-items.js';
import { planRangeShards } from './plan-ranges.js';
import type { ShardDescriptor } from '../shard/types.js';

interface PlanOptions {
  /** Target shard size in bytes. */
  shardBytes: number;
  /** Most items in one items shard. */
  maxItemsPerShard: number;
  maxLineBytes: number;
  from?: FormatName;
  /** The selected sessions of each SQLite store (ReadOptions). */
  sessions?: Readonly<Record<string, readonly string[]>>;
  /** Which range shards the planner hashes (see planRangeShards); by default none: their workers hash them. */
  hash?: (index: number) => boolean;
}

export interface PlannedShard {
  shard: ShardDescriptor;
  /** The items of an items shard. */
  items?: InputItem[];
}

/**
 * The run's shards in input order, numbered from 0, produced lazily: the caller pulls the next shard only when it has
 * room for it, which is the reader's backpressure. The same inputs and options always give the same shards, which is
 * what lets a resume match them against the journal.
 */
export async function* planShards(sources: readonly InputSource[], options: PlanOptions): AsyncGenerator<PlannedShard> {
  let index = 0;
  for (const source of sources) {
    if (source.kind === 'archive') {
      for await (const shard of planRangeShards(source.file, { shardBytes: options.shardBytes, firstIndex: index, hash: options.hash ?? (() => false) })) {
        index = shard.index + 1;
        yield { shard };
      }
      continue;
    }
    const items = readFile(source.file, {
      maxLineBytes: options.maxLineBytes,
      from: options.from,
      ...(options.sessions ? { sessions: options.sessions } : {}),
    });
    const itemOptions = { shardBytes: options.shardBytes, maxItems: options.maxItemsPerShard, firstIndex: index, format: source.format };
    for await (const planned of planItemShards(source.file, items, itemOptions)) {
      index = planned.shard.index + 1;
      yield planned;
    }
  }
}
