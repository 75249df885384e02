import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runSqlitePython } from './sqlite-writer.js';

export const ZED_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'zed');

export interface ZedRow {
  id: string;
  summary: string;
  updated_at: string;
  data_type: string;
  data: Uint8Array | string;
  folder_paths?: string;
}

/** The fixture threads as Zed stores them: the legacy one as JSON text, the current one compressed (test/fixtures/zed). */
export function fixtureRows(): ZedRow[] {
  return [
    {
      id: '0f8e2c4a-legacy',
      summary: 'Rename the config loader',
      updated_at: '2025-07-02T14:05:10+00:00',
      data_type: 'json',
      data: readFileSync(join(ZED_FIXTURES, 'thread-legacy.data')),
    },
    {
      id: '7b1d9e3f-current',
      summary: 'Fix the crash on empty input',
      updated_at: '2026-06-20T09:12:40+00:00',
      data_type: 'zstd',
      data: readFileSync(join(ZED_FIXTURES, 'thread-current.data.zst')),
      folder_paths: '/home/dev/todo-cli',
    },
  ];
}

/**
 * Writes threads into a database with Zed's `threads` table (crates/agent/src/db.rs, with its later columns) through
 * python3's sqlite3 in WAL mode. Rows from `walFrom` on are committed to the WAL only; with `uncommittedTail`, a large
 * transaction spills into the WAL and never commits (the writer is killed, as a running Zed would leave the files).
 */
export function writeZedDatabase(file: string, rows: readonly ZedRow[], layout: { walFrom?: number; uncommittedTail?: boolean } = {}): void {
  mkdirSync(dirname(file), { recursive: true });
  const input = join(dirname(file), '.rows.json');
  const encoded = rows.map((r) => ({ ...r, data: typeof r.data === 'string' ? { text: r.data } : { base64: Buffer.from(r.data).toString('base64') } }));
  writeFileSync(input, JSON.stringify({ rows: encoded, walFrom: layout.walFrom ?? rows.length, tail: layout.uncommittedTail === true }));
  try {
    runSqlitePython(WRITER, file, input);
  } finally {
    rmSync(input);
  }
}

const WRITER = `
import base64, json, os, sqlite3, sys
spec = json.load(open(sys.argv[2]))
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA journal_mode=WAL')
con.execute('PRAGMA wal_autocheckpoint=0')
con.execute('CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)')
for column in ('parent_id', 'folder_paths', 'folder_paths_order', 'created_at'):
    con.execute('ALTER TABLE threads ADD COLUMN %s TEXT' % column)
for i, r in enumerate(spec['rows']):
    if i == spec['walFrom']:
        con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    data = r['data']['text'] if 'text' in r['data'] else base64.b64decode(r['data']['base64'])
    con.execute('INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, created_at) VALUES (?,?,?,?,?,?,?)',
        (r['id'], r['summary'], r['updated_at'], r['data_type'], data, r.get('folder_paths'), r['updated_at']))
if spec['walFrom'] >= len(spec['rows']):
    con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
if spec['tail']:
    con.execute('PRAGMA cache_size=1')
    con.execute('BEGIN')
    for i in range(300):
        con.execute("INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, 'uncommitted', '2026-07-01T00:00:00Z', 'json', ?)",
            ('zz-uncommitted-%04d' % i, json.dumps({'version': '0.3.0', 'messages': [], 'pad': 'x' * 1000})))
os.kill(os.getpid(), 9)
`;
