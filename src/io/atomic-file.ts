import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { writeError } from '../errors.js';
import { makeDir } from './make-dir.js';
import { writeAll } from './write-all.js';

/** Temporary files carry this marker, so a later start can find and remove the ones a killed run left behind. */
const TEMP_MARKER = '.tmp-';

let counter = 0;

/** A temporary name next to `path`: pid and thread id keep concurrent writers apart (in a worker the pid is shared). */
function tempPathFor(path: string): string {
  return join(dirname(path), `${basename(path)}${TEMP_MARKER}${process.pid}-${threadId}-${counter++}`);
}

/** Makes a rename (or a new file) in `dir` durable; a failure is E_IO naming `dir`. */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw writeError(err, dir);
  }
}

/** Removes temporary files a killed run left in `dir`; returns how many. */
export async function removeStaleTemps(dir: string): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return 0;
  }
  const stale = entries.filter((name) => name.includes(TEMP_MARKER));
  for (const name of stale) await rm(join(dir, name), { force: true });
  return stale.length;
}

/**
 * A file written under a temporary name and renamed into place only once complete and fsynced, so readers and a
 * resumed run only ever see a missing file or a whole one (npm/write-file-atomic's recipe). Every output of tcompact is
 * written through here, so this is where a failed write (disk full, quota, read-only, no permission, I/O error) becomes
 * E_IO naming the final path and the system's reason.
 */
export class AtomicFile {
  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private handle: FileHandle | null,
  ) {}

  static async create(path: string): Promise<AtomicFile> {
    const tempPath = tempPathFor(path);
    try {
      return new AtomicFile(path, tempPath, await open(tempPath, 'w'));
    } catch (err) {
      throw writeError(err, path);
    }
  }

  /** Writes `data`: text, bytes, or pieces of bytes in order (written with one call). */
  async write(data: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
    if (!this.handle) throw new Error(`${this.path}: write after close`);
    const parts = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data;
    try {
      await writeAll(this.handle, parts, null);
    } catch (err) {
      throw writeError(err, this.path);
    }
  }

  /** fsync and close; the file is complete under its temporary name. */
  async flush(): Promise<void> {
    if (!this.handle) return;
    const handle = this.handle;
    this.handle = null;
    try {
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (err) {
      throw writeError(err, this.path);
    }
  }

  /** Moves the flushed file into place. The caller fsyncs the directory once after its renames. */
  async rename(): Promise<void> {
    await this.flush();
    try {
      await rename(this.tempPath, this.path);
    } catch (err) {
      throw writeError(err, this.path);
    }
  }

  /**
   * Drops the temporary file (after a failure). Never throws, so the failure that led here is the one reported; a
   * temporary file it could not remove goes at the next start (see {@link removeStaleTemps}).
   */
  async discard(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
    await rm(this.tempPath, { force: true }).catch(() => undefined);
  }
}

/** Writes a whole file atomically: temporary name, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(path: string, parts: readonly (string | Uint8Array)[]): Promise<void> {
  // Every writer creates its folder, as `run` does its --out (`stats --html new/x.html`).
  await makeDir(dirname(path));
  const file = await AtomicFile.create(path);
  try {
    for (const part of parts) await file.write(part);
    await file.rename();
  } catch (err) {
    await file.discard();
    throw err;
  }
  await fsyncDir(dirname(path));
}
