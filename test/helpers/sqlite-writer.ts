import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Runs a Python script with python3's own `sqlite3` module (the real SQLite, on every machine of this kind) to build
 * the databases the SQLite tests read: WAL pairs, hot journals. `argv[1..]` are `args`. A script may end itself with
 * SIGKILL (`os.kill(os.getpid(), 9)`) to leave its files as a crash leaves them; any other failure throws.
 */
export function runSqlitePython(script: string, ...args: string[]): void {
  const result = spawnSync('python3', ['-c', script, ...args], { encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.signal === 'SIGKILL') return;
  if (result.status !== 0) throw new Error(`python3 failed (${result.status}): ${result.stderr}`);
}

/** Opens argv[1] in autocommit mode, in WAL mode, with automatic checkpoints off. */
export const WAL_PRELUDE = `
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA journal_mode=WAL')
con.execute('PRAGMA wal_autocheckpoint=0')
def crash():
    os.kill(os.getpid(), 9)
`;

/**
 * Runs a fixture's committed Python writer (`test/fixtures/<agent>/write_store.py`) on `file`, handing it `rows` as a
 * JSON file beside it (`.<name>-rows.json`), removed afterwards: the writer builds the store as the agent writes it.
 */
export function runStoreWriter(writer: string, file: string, name: string, rows: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const input = join(dirname(file), `.${name}-rows.json`);
  writeFileSync(input, JSON.stringify(rows));
  try {
    runSqlitePython(`import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')`, writer, file, input);
  } finally {
    rmSync(input);
  }
}
