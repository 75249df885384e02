import type { InputItem } from '../../formats/types.js';
import type { Message } from '../../model/message.js';
import type { ItemsShard } from '../shard/types.js';

interface ItemPlanOptions {
  /** A batch is closed once its transcripts reach about this many characters of text. */
  shardBytes: number;
  /** ...or this many items. */
  maxItems: number;
  firstIndex: number;
  format?: string;
}

interface PlannedItems {
  shard: ItemsShard;
  items: InputItem[];
}

/**
 * Batches the items an adapter yields for one input into shards, so a worker gets a few MB of work per message rather
 * than one message per transcript. Pulls items only as shards are taken, so memory stays at one batch.
 */
export async function* planItemShards(input: string, items: AsyncIterable<InputItem>, options: ItemPlanOptions): AsyncGenerator<PlannedItems> {
  let index = options.firstIndex;
  let batch: InputItem[] = [];
  let size = 0;
  let firstItem = 0;
  const cut = (): PlannedItems => {
    const lines = batch.reduce((n, i) => n + unitsOf(i), 0);
    const shard: ItemsShard = { kind: 'items', index: index++, input, firstItem, count: batch.length, lines, approxBytes: size };
    if (options.format !== undefined) shard.format = options.format;
    const planned = { shard, items: batch };
    firstItem += batch.length;
    batch = [];
    size = 0;
    return planned;
  };
  for await (const item of items) {
    batch.push(item);
    if (item.kind === 'transcript') size += approxChars(item.transcript.messages);
    if (size >= options.shardBytes || batch.length >= options.maxItems) yield cut();
  }
  if (batch.length > 0) yield cut();
}

/** Input units an item accounts for (lines of JSONL, records of JSON arrays). */
function unitsOf(item: InputItem): number {
  return item.kind === 'skipped' ? 1 : (item.lines ?? 1);
}

/** A cheap size estimate: the characters of every string in the messages, without serializing them. */
function approxChars(messages: readonly Message[]): number {
  let n = 0;
  const visit = (value: unknown): void => {
    if (typeof value === 'string') n += value.length;
    else if (Array.isArray(value)) for (const v of value) visit(v);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  };
  visit(messages);
  return n;
}
