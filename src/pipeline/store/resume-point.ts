import { pathExists } from '../../io/path-exists.js';
import { join } from 'node:path';
import type { JournalShardEntry } from './journal.js';
import { type MergedOffsets, NO_OFFSETS, holdsBytes } from './merged-file.js';
import { SHARDS_DIR, shardPath } from './shard-store.js';

/** Where a resume picks the merged files up, and which journaled shards it reuses. */
export interface ResumePoint {
  /** Shards 0 to `prefix - 1` are in the merged files already: a resume only reads their reports. */
  prefix: number;
  /** The merged files' sizes after those shards: the resume cuts them back to this. */
  offsets: MergedOffsets;
  /** Journaled shards by index, without those whose bytes are only in the part of the merged files that is cut off. */
  reusable: Map<number, JournalShardEntry>;
}

export const FRESH_START: ResumePoint = { prefix: 0, offsets: NO_OFFSETS, reusable: new Map() };

/**
 * The merged files keep the shards up to the last one journaled with its offsets there, provided that every shard
 * before it is journaled, did not fail and still has its file: a failed shard is processed again, and so is one whose
 * file is gone (its report is lost), so nothing after it may stay. (The
 * writer never writes a shard straight into the merged files after a failed one, so no journaled shard is lost by
 * this; it keeps their own files instead.) Merged files shorter than the journal says (something removed or cut them)
 * keep nothing, and the shards that were only there are processed again.
 */
export async function resumePoint(outDir: string, shards: ReadonlyMap<number, JournalShardEntry>): Promise<ResumePoint> {
  let whole = 0;
  while (shards.get(whole)?.failed === false && (await pathExists(shardPath(outDir, whole)))) whole++;
  let last = whole - 1;
  while (last >= 0 && shards.get(last)?.merged === undefined) last--;
  let offsets = last >= 0 ? (shards.get(last)?.merged ?? NO_OFFSETS) : NO_OFFSETS;
  const dir = join(outDir, SHARDS_DIR);
  const held = await Promise.all((['transcripts', 'errors', 'refs'] as const).map((role) => holdsBytes(dir, role, offsets[role])));
  if (held.includes(false)) {
    last = -1;
    offsets = NO_OFFSETS;
  }
  const reusable = new Map([...shards].filter(([index, entry]) => entry.merged === undefined || index <= last));
  return { prefix: last + 1, offsets, reusable };
}
