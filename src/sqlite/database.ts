import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { TcompactError, type Outcome } from '../errors.js';
import { storeSnapshot } from './snapshot-scope.js';

export type Row = Record<string, SqlValue>;

/**
 * A SQLite store opened for reading, in memory: an image of the database as a new reader would see it (snapshot.ts),
 * given to sql.js, SQLite compiled to WebAssembly, which never sees the user's files (within `withStoreSnapshots`, the
 * picture the command took first: snapshot-scope.ts). Queries that fail (a page the image lacks, a malformed b-tree)
 * throw E_SQLITE naming the file.
 */
export interface SqliteStore {
  readonly file: string;
  /** Frames taken from the store's `-wal`, and the uncommitted ones left out. */
  readonly walFrames: { committed: number; uncommitted: number };
  /** Each table's columns, by table name. */
  tables(): Map<string, Set<string>>;
  /** Every row of a query, as objects by column name. */
  rows(sql: string, params?: SqlValue[]): Row[];
  /** Frees the image (sql.js keeps it in its own heap until then). */
  close(): void;
}

let engine: Promise<SqlJsStatic> | undefined;

/** sql.js, loaded once per process and only by one that reads a store (it compiles its WebAssembly module on first use). */
function sqlJs(): Promise<SqlJsStatic> {
  engine ??= import('sql.js').then((m) => m.default());
  return engine;
}

export async function openSqliteStore(file: string): Promise<Outcome<SqliteStore>> {
  const snapshot = await storeSnapshot(file);
  if (!snapshot.ok) return snapshot;
  const SQL = await sqlJs();
  let db: Database;
  try {
    db = new SQL.Database(snapshot.value.image);
    db.exec('PRAGMA query_only = 1');
  } catch (err) {
    return { ok: false, error: { code: 'E_SQLITE', message: `${file}: ${(err as Error).message}` } };
  }
  const query = (sql: string, params?: SqlValue[]): Row[] => {
    try {
      const statement = db.prepare(sql, params);
      const out: Row[] = [];
      try {
        while (statement.step()) out.push(statement.getAsObject());
      } finally {
        statement.free();
      }
      return out;
    } catch (err) {
      throw new TcompactError('E_SQLITE', `${file}: ${(err as Error).message}`);
    }
  };
  return {
    ok: true,
    value: {
      file,
      walFrames: snapshot.value.walFrames,
      rows: query,
      tables() {
        const out = new Map<string, Set<string>>();
        for (const { name } of query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
          if (typeof name !== 'string') continue;
          out.set(name, new Set(query('SELECT name FROM pragma_table_info(?)', [name]).map((r) => String(r.name))));
        }
        return out;
      },
      close: () => db.close(),
    },
  };
}
