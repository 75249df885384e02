import { open } from 'node:fs/promises';

// Apart from the store detection (_detect-stores.ts): this check runs on every input, while the store readers and
// sql.js they import are loaded only for a file that is a database.

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Whether a file starts with SQLite's header string: a database, whatever its name. */
export async function isSqliteFile(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(SQLITE_MAGIC.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead === buffer.length && buffer.toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
