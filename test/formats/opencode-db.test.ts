import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { readOpenCodeDatabase } from '../../src/formats/opencode-db.js';
import { readDatabaseSnapshot } from '../../src/sqlite/snapshot.js';
import { writeOpenCodeStorage } from '../helpers/agent-home.js';
import { otherSession, readExport, writeOpenCodeDatabase } from '../helpers/opencode-database.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, transcriptsOf } from './helpers.js';

// Built from OpenCode's source (see test/fixtures/opencode/SOURCE.md); the database from OpenCode's tables and its
// JSON-to-SQLite migration (test/helpers/opencode-database.ts).
const EXPORT = join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json');
const FIRST = readExport(EXPORT);
const SECOND = otherSession(FIRST, 'Kk2', '/home/dev/api-server', 86_400_000);

function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
}

/** The session as read from OpenCode's JSON storage (storage/session, message, part), which the database replaced. */
async function fromJsonStorage(doc: typeof FIRST) {
  const dir = tempDir('opencode-storage');
  const file = join(dir, `${doc.info.id}.export.json`);
  writeFileSync(file, JSON.stringify(doc));
  const items = await collect(readInputs([writeOpenCodeStorage(file, join(dir, 'storage'))], READ));
  expect(errorsOf(items)).toEqual([]);
  return transcriptsOf(items)[0];
}

describe("OpenCode's SQLite database (opencode.db) and Kilo CLI's (kilo.db)", () => {
  it('reads each session as its JSON storage reads, the WAL included and the uncommitted tail left out, and changes no byte', async () => {
    const dir = tempDir('opencode-db');
    const file = join(dir, 'opencode.db');
    // The second session's last four messages are committed to the WAL only; then a transaction is killed mid-way.
    const messages = FIRST.messages.length + SECOND.messages.length;
    writeOpenCodeDatabase(file, [FIRST, SECOND], { walFrom: messages - 4, uncommittedTail: true });
    const before = folderState(dir);
    const snapshot = await readDatabaseSnapshot(file);
    if (!snapshot.ok) throw new Error(snapshot.error.message);
    // The killed transaction did reach the WAL, past the last commit (its frames, rewritten in place as SQLite does
    // before a commit, no longer chain their checksums): the test would prove nothing otherwise.
    const wal = readFileSync(`${file}-wal`);
    expect(wal.length).toBeGreaterThan(32 + snapshot.value.walFrames.committed * (24 + wal.readUInt32BE(8)) + 100_000);
    expect(Object.keys(before).sort()).toEqual(['opencode.db', 'opencode.db-shm', 'opencode.db-wal']);

    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(2);
    const read = transcriptsOf(items);
    expect(read.map((t) => [t.format, t.line, t.transcript.id])).toEqual([
      ['opencode-db', 1, FIRST.info.id],
      ['opencode-db', 2, SECOND.info.id],
    ]);
    for (const [i, doc] of [FIRST, SECOND].entries()) {
      const want = await fromJsonStorage(doc);
      expect(read[i].transcript.messages).toEqual(want.transcript.messages);
      expect({ ...read[i].transcript.metadata, source: undefined }).toEqual({ ...want.transcript.metadata, source: undefined });
      expect(read[i].repairs).toEqual(want.repairs);
    }
    expect(read[0].transcript.metadata?.source).toEqual({ format: 'opencode-db', file });
    expect(folderState(dir)).toEqual(before);

    // Without its WAL the database lacks the last committed messages: they are what the WAL gave.
    const alone = join(tempDir('opencode-db-alone'), 'opencode.db');
    copyFileSync(file, alone);
    const [, secondAlone] = transcriptsOf(await collect(readOpenCodeDatabase(alone, READ)));
    expect(secondAlone.transcript.messages.length).toBeLessThan(read[1].transcript.messages.length);
  });

  it("reads Kilo CLI's kilo.db, OpenCode's tables under another name, found by its schema", async () => {
    const dir = tempDir('kilo-db');
    const file = join(dir, 'kilo.db');
    writeOpenCodeDatabase(file, [SECOND]);
    const items = await collect(readInputs([dir], READ));
    expect(errorsOf(items)).toEqual([]);
    const [t] = transcriptsOf(items);
    expect(t.format).toBe('opencode-db');
    expect(t.transcript.messages).toEqual((await fromJsonStorage(SECOND)).transcript.messages);
  });

  it('refuses a database of a schema it does not know (no message.data) with one E_SCHEMA error naming the file', async () => {
    const dir = tempDir('opencode-db-newer');
    const file = join(dir, 'opencode.db');
    writeOpenCodeDatabase(file, [FIRST]);
    // A later schema that moved the records' JSON elsewhere.
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('ALTER TABLE message RENAME COLUMN data TO payload')
con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
`,
      file,
    );
    const items = await collect(readOpenCodeDatabase(file, READ));
    expect(items).toEqual([
      {
        kind: 'error',
        record: { file, line: 1, byteOffset: 0, code: 'E_SCHEMA', message: `${file}: not an OpenCode database this version knows: no message.data` },
      },
    ]);
  });
});
