import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDir } from '../../io/make-dir.js';
import * as z from 'zod';
import { AtomicFile, fsyncDir } from '../../io/atomic-file.js';
import { bodyParts, sectionsOf } from '../shard/encoding.js';
import type { ShardDescriptor, ShardOutput, ShardReport } from '../shard/types.js';
import type { MergedOffsets } from './merged-file.js';

/**
 * DIR/.shards holds a run's work until its final files are in place: one file per committed shard, and the merged
 * files as they grow (merged-file.ts).
 */
export const SHARDS_DIR = '.shards';

export function shardPath(outDir: string, index: number): string {
  return join(outDir, SHARDS_DIR, `${String(index).padStart(6, '0')}.shard`);
}

const HeaderSchema = z.object({
  /** 1: the shard's sections are in this file; 2: they went straight into the merged files, which `merged` locates. */
  v: z.union([z.literal(1), z.literal(2)]),
  shard: z.object({ kind: z.enum(['range', 'items']), index: z.number().int() }).loose(),
  /** True when the shard is the E_WORKER stand-in for a shard whose worker crashed on every attempt. */
  failed: z.boolean(),
  sections: z.object({ transcripts: z.number().int(), errors: z.number().int(), refs: z.number().int(), report: z.number().int() }),
  merged: z.object({ transcripts: z.number().int(), errors: z.number().int(), refs: z.number().int() }).optional(),
});

export interface StoredShard {
  shard: ShardDescriptor;
  failed: boolean;
  transcripts: Buffer;
  errors: Buffer;
  refs: Buffer;
  report: ShardReport;
  /** Set for a shard whose sections are in the merged files, not here (its sections read back empty). */
  merged?: MergedOffsets;
}

/**
 * Commits one shard's output as a single file: a JSON header line (descriptor and section sizes), then the transcripts,
 * errors, refs and report sections back to back. Temporary name, fsync, rename, fsync of the directory: once this
 * resolves, the shard survives a `kill -9` or a power cut; before, nothing of it is visible.
 */
export async function commitShard(outDir: string, shard: ShardDescriptor, output: ShardOutput, failed: boolean): Promise<void> {
  const report = Buffer.from(JSON.stringify(output.report), 'utf8');
  const sections = { ...output.sizes, report: report.length };
  await writeShardFile(outDir, shard.index, `${JSON.stringify({ v: 1, shard, failed, sections })}\n`, bodyParts(output), report);
}

/**
 * Commits the file of a shard whose sections went straight into the merged files (already durable there): its header,
 * with the merged files' sizes after it, and its report, which a resume needs for report.json.
 */
export async function commitMergedShard(outDir: string, shard: ShardDescriptor, shardReport: ShardReport, merged: MergedOffsets): Promise<void> {
  const report = Buffer.from(JSON.stringify(shardReport), 'utf8');
  const sections = { transcripts: 0, errors: 0, refs: 0, report: report.length };
  await writeShardFile(outDir, shard.index, `${JSON.stringify({ v: 2, shard, failed: false, sections, merged })}\n`, [], report);
}

async function writeShardFile(outDir: string, index: number, header: string, body: readonly Uint8Array[], report: Buffer): Promise<void> {
  const path = shardPath(outDir, index);
  const file = await AtomicFile.create(path);
  try {
    await file.write(header);
    await file.write(body);
    await file.write(report);
    await file.rename();
  } catch (err) {
    await file.discard();
    throw err;
  }
  await fsyncDir(join(outDir, SHARDS_DIR));
}

/** A shard's sections as the merge takes them: the refs section may come in pieces (see ShardOutput.refParts). */
export type MergeableShard = Omit<StoredShard, 'failed' | 'refs'> & { refs: Uint8Array | readonly Uint8Array[] };

/** A committed shard's output as the merge reads it back, from memory: views of its body, no copies. */
export function heldShard(shard: ShardDescriptor, output: ShardOutput): MergeableShard {
  return { shard, ...sectionsOf(output), report: output.report };
}

export async function readShard(outDir: string, index: number): Promise<StoredShard> {
  const data = await readFile(shardPath(outDir, index));
  const nl = data.indexOf(10);
  if (nl === -1) throw new Error(`${shardPath(outDir, index)}: no header`);
  const header = HeaderSchema.parse(JSON.parse(data.subarray(0, nl).toString('utf8')));
  let at = nl + 1;
  const take = (n: number): Buffer => {
    const part = data.subarray(at, at + n);
    at += n;
    return part;
  };
  const transcripts = take(header.sections.transcripts);
  const errors = take(header.sections.errors);
  const refs = take(header.sections.refs);
  const report = JSON.parse(take(header.sections.report).toString('utf8')) as ShardReport;
  if (at !== data.length) throw new Error(`${shardPath(outDir, index)}: ${data.length - at} bytes beyond the sections`);
  const stored: StoredShard = { shard: header.shard as unknown as ShardDescriptor, failed: header.failed, transcripts, errors, refs, report };
  if (header.v === 2) {
    if (!header.merged) throw new Error(`${shardPath(outDir, index)}: no merged offsets`);
    stored.merged = header.merged;
  }
  return stored;
}

export async function ensureShardsDir(outDir: string): Promise<string> {
  const dir = join(outDir, SHARDS_DIR);
  await makeDir(dir);
  return dir;
}

export async function removeShardsDir(outDir: string): Promise<void> {
  await rm(join(outDir, SHARDS_DIR), { recursive: true, force: true });
}
