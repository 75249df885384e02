import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDir } from '../../io/make-dir.js';
import { z } from 'zod';
import { AtomicFile, fsyncDir } from '../../io/atomic-file.js';
import { sectionsOf } from '../shard/encoding.js';
import type { ShardDescriptor, ShardOutput, ShardReport } from '../shard/types.js';

/** Committed shards live in DIR/.shards until the final merge is done. */
export const SHARDS_DIR = '.shards';

export function shardPath(outDir: string, index: number): string {
  return join(outDir, SHARDS_DIR, `${String(index).padStart(6, '0')}.shard`);
}

const HeaderSchema = z.object({
  v: z.literal(1),
  shard: z.object({ kind: z.enum(['range', 'items']), index: z.number().int() }).loose(),
  /** True when the shard is the E_WORKER stand-in for a shard whose worker crashed on every attempt. */
  failed: z.boolean(),
  sections: z.object({ transcripts: z.number().int(), errors: z.number().int(), refs: z.number().int(), report: z.number().int() }),
});

export interface StoredShard {
  shard: ShardDescriptor;
  failed: boolean;
  transcripts: Buffer;
  errors: Buffer;
  refs: Buffer;
  report: ShardReport;
}

/**
 * Commits one shard's output as a single file: a JSON header line (descriptor and section sizes), then the transcripts,
 * errors, refs and report sections back to back. Temporary name, fsync, rename, fsync of the directory: once this
 * resolves, the shard survives a `kill -9` or a power cut; before, nothing of it is visible.
 */
export async function commitShard(outDir: string, shard: ShardDescriptor, output: ShardOutput, failed: boolean): Promise<void> {
  const report = Buffer.from(JSON.stringify(output.report), 'utf8');
  const sections = { ...output.sizes, report: report.length };
  const header = `${JSON.stringify({ v: 1, shard, failed, sections })}\n`;
  const path = shardPath(outDir, shard.index);
  const file = await AtomicFile.create(path);
  try {
    await file.write(header);
    await file.write(output.body);
    await file.write(report);
    await file.rename();
  } catch (err) {
    await file.discard();
    throw err;
  }
  await fsyncDir(join(outDir, SHARDS_DIR));
}

/** A committed shard's output as the merge reads it back, from memory: views of its body, no copies. */
export function heldShard(shard: ShardDescriptor, output: ShardOutput): Omit<StoredShard, 'failed'> {
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
  return { shard: header.shard as unknown as ShardDescriptor, failed: header.failed, transcripts, errors, refs, report };
}

export async function ensureShardsDir(outDir: string): Promise<string> {
  const dir = join(outDir, SHARDS_DIR);
  await makeDir(dir);
  return dir;
}

export async function removeShardsDir(outDir: string): Promise<void> {
  await rm(join(outDir, SHARDS_DIR), { recursive: true, force: true });
}
