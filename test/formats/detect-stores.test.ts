import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { writeOpenCodeDatabase, readExport } from '../helpers/opencode-database.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ } from './helpers.js';

const FIRST = readExport(join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));

describe('detection of SQLite stores by their schema', () => {
  it("takes a database with OpenCode's keyed session, message and part tables for opencode-db, whatever its name", async () => {
    const file = join(tempDir('detect-store'), 'copy-of-my-sessions.sqlite');
    writeOpenCodeDatabase(file, [FIRST]);
    expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'opencode-db', layout: 'json' });
  });

  it('does not take tables of the same names for a store: sessions and messages (goose, Crush) are E_FORMAT naming the tables, never E_UTF8', async () => {
    const file = join(tempDir('detect-store'), 'sessions.db');
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT)')
con.execute('CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT)')
con.commit()
`,
      file,
    );
    expect(await detectFormat(file, READ)).toEqual({
      ok: false,
      code: 'E_FORMAT',
      message: "unknown format: a SQLite database whose tables [messages, sessions] are no agent's store",
      layout: 'json',
    });
    // Not OpenCode's either when it has tables of OpenCode's names that are not keyed to each other.
    const loose = join(tempDir('detect-store'), 'opencode.db');
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for t in ('session', 'message', 'part'):
    con.execute('CREATE TABLE %s (id TEXT PRIMARY KEY, data TEXT)' % t)
con.commit()
`,
      loose,
    );
    expect(await detectFormat(loose, READ)).toMatchObject({ ok: false, code: 'E_FORMAT' });
  });
});
