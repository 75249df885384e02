import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import type { ShardDescriptor } from '../shard/types.js';
import type { MergedOffsets } from './merged-file.js';

/**
 * DIR/journal.jsonl: a header line (the settings and input fingerprints the run started with), then one line per
 * committed shard, appended and fsynced only after the shard is durable (its file in .shards, and for a shard written
 * straight into the merged files, its bytes there: the entry then records their sizes after it), then `done` once the
 * final files are in place. A resume trusts exactly the shards it lists.
 */
const JOURNAL_FILE = 'journal.jsonl';
const JOURNAL_VERSION = 1;

const FingerprintSchema = z.object({ path: z.string(), size: z.number(), mtimeMs: z.number(), edgesSha256: z.string() });

const HeaderSchema = z.object({
  type: z.literal('run'),
  version: z.literal(JOURNAL_VERSION),
  /** Everything that determines the output bytes (config, limits, shard sizes), as canonical JSON data. */
  settings: z.record(z.string(), z.unknown()),
  settingsHash: z.string(),
  inputs: z.array(FingerprintSchema),
});
export type JournalHeader = z.infer<typeof HeaderSchema>;

const OffsetsSchema = z.object({ transcripts: z.number().int().min(0), errors: z.number().int().min(0), refs: z.number().int().min(0) });

const ShardEntrySchema = z.object({
  type: z.literal('shard'),
  shard: z.object({ kind: z.enum(['range', 'items']), index: z.number().int().min(0) }).loose(),
  failed: z.boolean(),
  merged: OffsetsSchema.optional(),
});
const DoneSchema = z.object({ type: z.literal('done') });

export interface JournalShardEntry {
  type: 'shard';
  shard: ShardDescriptor;
  /** An E_WORKER stand-in: a resume processes the shard again instead of reusing it. */
  failed: boolean;
  /**
   * Set when the shard's bytes went straight into the merged files (its file in .shards then holds only its report):
   * their sizes right after it, durable before this entry was written.
   */
  merged?: MergedOffsets;
}

export interface JournalState {
  header: JournalHeader;
  /** Committed shards by index (the last entry wins if a shard was committed twice). */
  shards: Map<number, JournalShardEntry>;
  done: boolean;
  /** Length of the journal up to its last complete line; a resume cuts a torn tail off before appending. */
  validBytes: number;
}

/** Reads a journal; a torn last line (a kill during an append) is ignored. Undefined when there is none. */
export async function readJournal(outDir: string): Promise<JournalState | undefined> {
  let text: string;
  try {
    text = await readFile(join(outDir, JOURNAL_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // Only a line followed by `\n` was completely appended.
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const values: unknown[] = [];
  for (const line of complete.split('\n')) {
    if (line === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      values.push(undefined);
    }
  }
  const header = HeaderSchema.safeParse(values[0]);
  if (!header.success) return undefined;
  const state: JournalState = { header: header.data, shards: new Map(), done: false, validBytes: Buffer.byteLength(complete, 'utf8') };
  for (const value of values.slice(1)) {
    const shard = ShardEntrySchema.safeParse(value);
    if (shard.success) state.shards.set(shard.data.shard.index, shard.data as unknown as JournalShardEntry);
    else if (DoneSchema.safeParse(value).success) state.done = true;
  }
  return state;
}

/**
 * An open journal: appends are serialized and each is fsynced before the next starts. A failed append (disk full) is
 * E_IO naming the journal; it is cut back to its last complete line and takes no entry after it, so a resume sees
 * exactly the shards whose entries were completely written.
 */
export class Journal {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    /** Bytes up to the last complete entry. */
    private size: number,
  ) {}

  /** Starts a new journal with its header (atomically replacing any old one). */
  static async create(outDir: string, header: Omit<JournalHeader, 'type' | 'version'>): Promise<Journal> {
    const path = join(outDir, JOURNAL_FILE);
    const line = `${JSON.stringify({ type: 'run', version: JOURNAL_VERSION, ...header })}\n`;
    await writeFileAtomic(path, [line]);
    return Journal._open(path, Buffer.byteLength(line, 'utf8'));
  }

  /** Continues an existing journal (a resume), first cutting off a line a kill left half-written. */
  static async reopen(outDir: string, validBytes: number): Promise<Journal> {
    const path = join(outDir, JOURNAL_FILE);
    try {
      const handle = await open(path, 'r+');
      await handle.truncate(validBytes);
      await handle.close();
    } catch (err) {
      throw writeError(err, path);
    }
    return Journal._open(path, validBytes);
  }

  private static async _open(path: string, size: number): Promise<Journal> {
    try {
      return new Journal(path, await open(path, 'a'), size);
    } catch (err) {
      throw writeError(err, path);
    }
  }

  append(entry: JournalShardEntry | { type: 'done' }): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8');
    const next = this.chain.then(() => this._append(line));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async _append(line: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    try {
      let done = 0;
      while (done < line.length) done += (await this.handle.write(line, done, line.length - done)).bytesWritten;
      await this.handle.datasync();
      this.size += line.length;
    } catch (err) {
      this.failure = writeError(err, this.path);
      // A short write left part of the entry: without it the journal ends on a complete line again.
      await this.handle.truncate(this.size).catch(() => undefined);
      throw this.failure;
    }
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
  }
}
