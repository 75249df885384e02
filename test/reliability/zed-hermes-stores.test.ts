import { copyFileSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const ZED = join(FIXTURES, 'zed', 'threads.db');
const HERMES = join(FIXTURES, 'hermes', 'state.db');

/** A transaction killed mid-way in rollback-journal mode: the hot journal a crashed or running writer leaves. */
const HOT_JOURNAL = `
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA journal_mode=DELETE')
con.execute('PRAGMA cache_size=1')
con.execute('BEGIN')
for i in range(300):
    con.execute(sys.argv[2], ('zz-%04d' % i,))
os.kill(os.getpid(), 9)
`;
const INSERT = {
  zed: "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, 'x', '2026-01-01T00:00:00Z', 'json', zeroblob(2000))",
  hermes: "INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', 1)",
};

/**
 * RELIABILITY 29 for Zed's and Hermes' stores: one that is locked by a write in progress, cut mid-page or of a later
 * schema is one error line naming the file, exit 1, and the other store is read.
 */
const FAULTS: [string, 'zed' | 'hermes', (file: string) => void, RegExp][] = [
  ['a Zed store locked by a write in progress', 'zed', (f) => runSqlitePython(HOT_JOURNAL, f, INSERT.zed), /E_SQLITE: .*threads\.db: a write is in progress/],
  ['a Zed store cut mid-page', 'zed', (f) => truncateSync(f, readFileSync(f).length - 1000), /E_SQLITE: .*threads\.db: truncated mid-page/],
  [
    'a Zed store of a later schema',
    'zed',
    (f) =>
      runSqlitePython("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE threads RENAME COLUMN data_type TO kind'); c.commit()", f),
    /E_SCHEMA: .*threads\.db: not a Zed threads database this version knows: no threads\.data_type/,
  ],
  [
    'a Hermes store locked by a write in progress',
    'hermes',
    (f) => runSqlitePython(HOT_JOURNAL, f, INSERT.hermes),
    /E_SQLITE: .*state\.db: a write is in progress/,
  ],
  ['a Hermes store cut mid-page', 'hermes', (f) => truncateSync(f, readFileSync(f).length - 1000), /E_SQLITE: .*state\.db: truncated mid-page/],
  [
    'a Hermes store of a later schema',
    'hermes',
    (f) =>
      runSqlitePython(
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE sessions RENAME COLUMN input_tokens TO tokens_in'); c.commit()",
        f,
      ),
    /E_SCHEMA: .*state\.db: not a Hermes state database this version knows: no sessions\.input_tokens/,
  ],
];

describe("RELIABILITY 29: Zed's and Hermes' stores that cannot be read as they are", () => {
  it.each(FAULTS)('%s: one error naming the file, the other store read, exit 1', async (_, agent, fault, line) => {
    const dir = tempDir('store-fault');
    const bad = join(dir, 'bad', agent === 'zed' ? 'threads.db' : 'state.db');
    const good = join(dir, 'good', agent === 'zed' ? 'state.db' : 'threads.db');
    mkdirSync(join(dir, 'bad'));
    mkdirSync(join(dir, 'good'));
    copyFileSync(agent === 'zed' ? ZED : HERMES, bad);
    copyFileSync(agent === 'zed' ? HERMES : ZED, good);
    fault(bad);
    const out = join(dir, 'out.jsonl');
    const r = await runMain(['convert', good, bad, '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(line);
    expect(r.stderr.split('\n').filter((l) => l.includes(bad))).toHaveLength(1);
    const read = readFileSync(out, 'utf8').trim().split('\n');
    expect(read).toHaveLength(agent === 'zed' ? 3 : 2);
  });
});
