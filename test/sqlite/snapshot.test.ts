import { readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore, readDatabaseSnapshot } from '../../src/sqlite/index.js';
import { runSqlitePython, WAL_PRELUDE } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every file of a folder with its bytes: what the read must leave exactly as it was. */
function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
}

/**
 * A database in WAL mode: one row checkpointed into the main file, one committed in the WAL, then a large transaction
 * whose pages spill into the WAL (a one-page cache) before the writer is killed: its frames are in the log, uncommitted.
 */
const COMMITTED_THEN_UNCOMMITTED = `${WAL_PRELUDE}
con.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
con.execute("INSERT INTO t (v) VALUES ('in the main file')")
con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
con.execute("INSERT INTO t (v) VALUES ('committed in the WAL')")
con.execute('PRAGMA cache_size=1')
con.execute('BEGIN')
for i in range(400):
    con.execute('INSERT INTO t (v) VALUES (?)', ('uncommitted ' + 'x' * 1000,))
crash()
`;

describe('reading a SQLite database and its WAL, never writing them', () => {
  it('sees the committed write in the WAL and not the uncommitted tail, and leaves every byte of the folder as it was', async () => {
    const dir = tempDir('sqlite-wal');
    const file = join(dir, 'store.db');
    runSqlitePython(COMMITTED_THEN_UNCOMMITTED, file);
    const before = folderState(dir);
    expect(Object.keys(before)).toContain('store.db-wal');

    const store = await openSqliteStore(file);
    if (!store.ok) throw new Error(store.error.message);
    const rows = store.value.rows('SELECT v FROM t ORDER BY id').map((r) => r.v);
    expect(store.value.walFrames.committed).toBeGreaterThan(0);
    // The killed transaction did reach the log: the test would prove nothing otherwise.
    expect(store.value.walFrames.uncommitted).toBeGreaterThan(0);
    store.value.close();

    expect(rows).toEqual(['in the main file', 'committed in the WAL']);
    expect(folderState(dir)).toEqual(before);
  });

  it('reads the main file alone as it was before the WAL: the WAL is what holds the latest commit', async () => {
    const dir = tempDir('sqlite-wal');
    const file = join(dir, 'store.db');
    runSqlitePython(COMMITTED_THEN_UNCOMMITTED, file);
    const copy = join(dir, 'alone.db');
    writeFileSync(copy, readFileSync(file));
    const store = await openSqliteStore(copy);
    if (!store.ok) throw new Error(store.error.message);
    expect(store.value.rows('SELECT v FROM t').map((r) => r.v)).toEqual(['in the main file']);
    store.value.close();
  });

  it('ignores frames whose checksum breaks the chain, and every frame after them', async () => {
    const dir = tempDir('sqlite-wal');
    const file = join(dir, 'store.db');
    runSqlitePython(
      `${WAL_PRELUDE}
con.execute('CREATE TABLE t (v TEXT)')
con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
con.execute("INSERT INTO t VALUES ('first')")
con.execute("INSERT INTO t VALUES ('second')")
crash()
`,
      file,
    );
    const wal = readFileSync(`${file}-wal`);
    const pageSize = wal.readUInt32BE(8);
    const frames = (wal.length - 32) / (24 + pageSize);
    expect(frames).toBe(2);
    // Flip a byte in the second frame's page: its checksum no longer matches, so only the first commit counts.
    wal[32 + (24 + pageSize) + 24 + 100] ^= 0xff;
    writeFileSync(`${file}-wal`, wal);
    const store = await openSqliteStore(file);
    if (!store.ok) throw new Error(store.error.message);
    expect(store.value.rows('SELECT v FROM t').map((r) => r.v)).toEqual(['first']);
    store.value.close();
  });

  it('refuses a database with a hot rollback journal beside it, naming the file', async () => {
    const dir = tempDir('sqlite-journal');
    const file = join(dir, 'store.db');
    runSqlitePython(
      `
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('CREATE TABLE t (v TEXT)')
con.execute("INSERT INTO t VALUES ('kept')")
con.execute('PRAGMA cache_size=1')
con.execute('BEGIN')
for i in range(400):
    con.execute('INSERT INTO t VALUES (?)', ('x' * 1000,))
os.kill(os.getpid(), 9)
`,
      file,
    );
    const before = folderState(dir);
    expect(Object.keys(before)).toContain('store.db-journal');
    const snapshot = await readDatabaseSnapshot(file);
    expect(snapshot).toEqual({
      ok: false,
      error: { code: 'E_SQLITE', message: expect.stringContaining(`${file}: a write is in progress or was interrupted (hot journal`) },
    });
    expect(folderState(dir)).toEqual(before);
  });

  it('refuses a database cut mid-page and a file that is not a database', async () => {
    const dir = tempDir('sqlite-cut');
    const file = join(dir, 'store.db');
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('CREATE TABLE t (v TEXT)')
con.commit()
`,
      file,
    );
    const size = readFileSync(file).length;
    truncateSync(file, size - 100);
    expect(await readDatabaseSnapshot(file)).toEqual({
      ok: false,
      error: { code: 'E_SQLITE', message: `${file}: truncated mid-page: ${size - 100} bytes is not a whole number of 4096-byte pages` },
    });
    const text = join(dir, 'notes.db');
    writeFileSync(text, 'not a database at all, but long enough to hold a header of a hundred bytes '.repeat(3));
    expect(await readDatabaseSnapshot(text)).toMatchObject({
      ok: false,
      error: { code: 'E_SQLITE', message: expect.stringContaining(`${text}: not a SQLite database`) },
    });
  });
});
