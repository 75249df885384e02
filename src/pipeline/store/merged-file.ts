import { open, rename, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { TcompactError, writeError } from '../../errors.js';
import { writeAll } from '../../io/write-all.js';

/** Where each merged file grows, in DIR/.shards, named for its role: the final path may be elsewhere (`compact`). */
export const MERGED_NAMES = { transcripts: 'transcripts.jsonl', errors: 'errors.jsonl', refs: 'refs.jsonl' } as const;

/** The sizes of the three merged files after a shard was appended: where a resume cuts them back to. */
export interface MergedOffsets {
  transcripts: number;
  errors: number;
  refs: number;
}

export const NO_OFFSETS: MergedOffsets = { transcripts: 0, errors: 0, refs: 0 };

export function mergedPath(shardsDir: string, role: keyof MergedOffsets): string {
  return join(shardsDir, MERGED_NAMES[role]);
}

/**
 * One final file (transcripts, errors or refs) while it grows: shards are appended in shard order, and a shard that
 * goes into it straight from memory is made durable (fdatasync) before the journal lists it, so its bytes are written
 * once. A resume cuts the file back to the size the journal recorded after the last such shard, which drops whatever
 * a kill left after it. Errors name the final path, the file the user knows.
 */
export class MergedFile {
  private dirty = false;

  private constructor(
    private readonly path: string,
    readonly finalPath: string,
    private handle: FileHandle | null,
    private length: number,
  ) {}

  /** Opens the file, keeping its first `keep` bytes (0: a new, empty file). */
  static async open(path: string, finalPath: string, keep: number): Promise<MergedFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, keep === 0 ? 'w' : 'r+');
    } catch (err) {
      throw writeError(err, finalPath);
    }
    try {
      if (keep > 0) {
        const { size } = await handle.stat();
        // resumePoint checked the size; a file that shrank since is not the one the journal describes.
        if (size < keep)
          throw new TcompactError('E_RESUME', `${path} holds ${size} bytes, fewer than the ${keep} the journal lists; run again without --resume`);
        await handle.truncate(keep);
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw TcompactError.isInstance(err) ? err : writeError(err, finalPath);
    }
    return new MergedFile(path, finalPath, handle, keep);
  }

  get size(): number {
    return this.length;
  }

  /** Appends `data`, one buffer or the pieces of one section (written with one call). */
  async append(data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    if (!this.handle) throw new Error(`${this.finalPath}: write after close`);
    try {
      await writeAll(this.handle, data instanceof Uint8Array ? [data] : data, this.length, (n) => {
        this.length += n;
        this.dirty = true;
      });
    } catch (err) {
      throw writeError(err, this.finalPath);
    }
  }

  /** Makes what was appended durable; nothing to do when nothing was. */
  async sync(): Promise<void> {
    if (!this.handle || !this.dirty) return;
    try {
      await this.handle.datasync();
    } catch (err) {
      throw writeError(err, this.finalPath);
    }
    this.dirty = false;
  }

  /** Syncs, closes and renames the file into place (the caller fsyncs the final folder). */
  async moveTo(): Promise<void> {
    await this.sync();
    await this.close();
    try {
      await rename(this.path, this.finalPath);
    } catch (err) {
      throw writeError(err, this.finalPath);
    }
  }

  /** Closes without moving: the file stays for a resume. Never throws. */
  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
  }
}

/** True when the merged file of `role` holds at least `bytes` bytes (a file that is not there holds none). */
export async function holdsBytes(shardsDir: string, role: keyof MergedOffsets, bytes: number): Promise<boolean> {
  if (bytes === 0) return true;
  try {
    return (await stat(mergedPath(shardsDir, role))).size >= bytes;
  } catch {
    return false;
  }
}
