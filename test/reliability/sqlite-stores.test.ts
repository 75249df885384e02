import { readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { otherSession, readExport, writeOpenCodeDatabase } from '../helpers/opencode-database.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIRST = readExport(join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));
const SECOND = otherSession(FIRST, 'Kk2', '/home/dev/api-server', 86_400_000);

/**
 * RELIABILITY 29: a SQLite store that cannot be read as it is (a write in progress, a file cut mid-page, a schema this
 * version does not know) is one error line naming the file; the other inputs are read; exit 1.
 */
const FAULTS: [string, (file: string) => void, RegExp][] = [
  [
    'a write in progress (hot journal)',
    (file) =>
      runSqlitePython(
        `
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA journal_mode=DELETE')
con.execute('PRAGMA cache_size=1')
con.execute('BEGIN')
for i in range(300):
    con.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, 'ses_5b2e1c7d9ffeAbCdEf012345', 1, 1, '{}')", ('msg_zz%04d' % i,))
os.kill(os.getpid(), 9)
`,
        file,
      ),
    /E_SQLITE: .*bad\.db: a write is in progress or was interrupted \(hot journal .*bad\.db-journal\)/,
  ],
  ['a file cut mid-page', (file) => truncateSync(file, readFileSync(file).length - 1000), /E_SQLITE: .*bad\.db: truncated mid-page/],
  [
    'a schema this version does not know',
    (file) =>
      runSqlitePython(
        `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('ALTER TABLE part RENAME COLUMN data TO payload')
`,
        file,
      ),
    /E_SCHEMA: .*bad\.db: not an OpenCode database this version knows: no part\.data/,
  ],
];

describe('RELIABILITY 29: a SQLite store that cannot be read as it is', () => {
  it.each(FAULTS)('%s: one error naming the file, the other store read, exit 1', async (_, fault, line) => {
    const dir = tempDir('sqlite-fault');
    const good = join(dir, 'good', 'opencode.db');
    const bad = join(dir, 'bad', 'bad.db');
    writeOpenCodeDatabase(good, [FIRST]);
    writeOpenCodeDatabase(bad, [SECOND]);
    runSqlitePython('import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode=DELETE")', bad);
    fault(bad);
    const out = join(dir, 'out.jsonl');
    const r = await runMain(['convert', good, bad, '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(line);
    expect(r.stderr.split('\n').filter((l) => l.includes('bad.db'))).toHaveLength(1);
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual([FIRST.info.id]);
  });
});
