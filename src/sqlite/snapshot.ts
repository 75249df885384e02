import { open, readFile, stat } from 'node:fs/promises';
import { TcompactError, type Outcome } from '../errors.js';
import { headerPageSize, markRollbackMode } from './header.js';
import { applyWal } from './wal.js';

/** The first bytes of a rollback journal that still holds a transaction (pager.c `aJournalMagic`). */
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
/** How many times a read is tried again when the agent checkpointed the database while it was being read. */
const ATTEMPTS = 5;

/** A database as SQLite would show it to a new reader, taken from its files without touching them. */
export interface DatabaseSnapshot {
  /** The database file with the committed frames of its WAL applied, marked as a rollback-journal database. */
  image: Uint8Array;
  /** Frames of committed transactions taken from `-wal`, and valid frames after the last commit, left out. */
  walFrames: { committed: number; uncommitted: number };
}

/**
 * Reads a SQLite database and its `-wal` into memory, read-only, and applies the log's committed frames (wal.ts). It
 * opens nothing for writing, takes no lock, checkpoints nothing and creates no `-shm`: the agent that owns the
 * files never sees the read. Refused, as E_SQLITE naming the file:
 * - a hot rollback journal (`-journal` beside the database, holding a transaction): a write is under way or was
 *   interrupted, and only a writer may roll it back;
 * - a file that is not a SQLite database, or whose size is not a whole number of pages (cut mid-page);
 * - a database checkpointed again and again while it was read (no stable picture after a few attempts).
 */
export async function readDatabaseSnapshot(file: string): Promise<Outcome<DatabaseSnapshot>> {
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const taken = await takeOnce(file);
      if (taken !== 'changed') return { ok: true, value: taken };
    }
    return failure(file, 'it was checkpointed while being read, every time it was tried');
  } catch (err) {
    if (TcompactError.isInstance(err)) return { ok: false, error: err.toInfo() };
    return { ok: false, error: { code: 'E_IO', message: `${file}: ${(err as Error).message}` } };
  }
}

async function takeOnce(file: string): Promise<DatabaseSnapshot | 'changed'> {
  const journal = await readStart(`${file}-journal`, JOURNAL_MAGIC.length);
  if (journal !== undefined && Buffer.from(journal).equals(JOURNAL_MAGIC))
    fail(file, `a write is in progress or was interrupted (hot journal ${file}-journal); let the agent finish or reopen it, then read again`);
  const before = await stat(file);
  // The log first, then the database: a checkpoint in between changes the database file, which the second stat sees.
  const wal = await readFile(`${file}-wal`).catch(absent);
  const main = new Uint8Array(await readFile(file));
  const after = await stat(file);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || main.length !== after.size) return 'changed';
  const walHeader = await readStart(`${file}-wal`, 32);
  if (wal !== undefined && walHeader !== undefined && !Buffer.from(walHeader).equals(wal.subarray(0, 32))) return 'changed';
  const pageSize = headerPageSize(main);
  if (main.length > 0 && pageSize === undefined) fail(file, 'not a SQLite database (no "SQLite format 3" header with a valid page size)');
  if (pageSize !== undefined && main.length % pageSize !== 0)
    fail(file, `truncated mid-page: ${main.length} bytes is not a whole number of ${pageSize}-byte pages`);
  const applied = applyWal(main, wal === undefined ? undefined : new Uint8Array(wal), pageSize);
  if (!applied.ok) fail(file, applied.reason);
  const { image } = applied.value;
  if (image.length > 0 && headerPageSize(image) === undefined) fail(file, 'not a SQLite database once its WAL is applied');
  markRollbackMode(image);
  return { image, walFrames: { committed: applied.value.committedFrames, uncommitted: applied.value.uncommittedFrames } };
}

/** The first `length` bytes of a file, or undefined when it is absent or empty. */
async function readStart(path: string, length: number): Promise<Uint8Array | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    return absent(err);
  }
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return bytesRead === 0 ? undefined : buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function absent(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
}

function fail(file: string, reason: string): never {
  throw new TcompactError('E_SQLITE', `${file}: ${reason}`);
}

function failure(file: string, reason: string): Outcome<never> {
  return { ok: false, error: { code: 'E_SQLITE', message: `${file}: ${reason}` } };
}
