import { TcompactError } from '../errors.js';
import { openSqliteStore, type Row, type SqliteStore } from '../sqlite/database.js';
import { releaseSnapshot } from '../sqlite/snapshot-scope.js';
import { errorItem } from './_items.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * What the readers of agents' SQLite stores share. A store is read whole (src/sqlite/: the database and the committed
 * frames of its WAL, never written); each session in it is one unit of accounting, at `line` its 1-based position in
 * the store's order (and `record` the 0-based one). A store that cannot be read is one error naming the file.
 */

/** The position of a store's n-th session (0-based). */
export function sessionPosition(file: string, index: number): SourcePosition {
  return { file, line: index + 1, byteOffset: 0, record: index };
}

/** The store's required tables and columns, each missing one named; undefined when all are there. */
export function missingColumns(store: SqliteStore, required: Readonly<Record<string, readonly string[]>>): string | undefined {
  const tables = store.tables();
  const missing: string[] = [];
  for (const [table, columns] of Object.entries(required)) {
    const have = tables.get(table);
    if (have === undefined) missing.push(`table ${table}`);
    else for (const column of columns) if (!have.has(column)) missing.push(`${table}.${column}`);
  }
  return missing.length === 0 ? undefined : missing.join(', ');
}

/**
 * Opens the store, runs `read` over it and closes it. The store's own failures (a hot journal, a file cut mid-page, a
 * query on a malformed image) are one error item for the file at its first unit; items `read` yielded stay yielded.
 */
export async function* readStore(file: string, read: (store: SqliteStore) => Iterable<InputItem>): AsyncGenerator<InputItem> {
  const whole: SourcePosition = { file, line: 1, byteOffset: 0 };
  const opened = await openSqliteStore(file);
  if (!opened.ok) {
    releaseSnapshot(file);
    yield errorItem(whole, opened.error.code, opened.error.message);
    return;
  }
  try {
    yield* read(opened.value);
  } catch (err) {
    if (!TcompactError.isInstance(err)) throw err;
    yield errorItem(whole, err.code, err.message);
  } finally {
    opened.value.close();
    releaseSnapshot(file);
  }
}

/** A JSON text column parsed, or an error for the unit it belongs to. */
export function parseColumn(value: unknown, what: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: `${what}: not JSON text` };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch (err) {
    return { ok: false, message: `${what}: ${(err as Error).message}` };
  }
}

/** How one agent's store is read by readStoreSessions. */
export interface StoreSessions {
  /** What the store is, as its refusal names it ("a goose database"). */
  kind: string;
  /** The tables and columns the reader needs: a store lacking one is refused (E_SCHEMA), each missing one named. */
  required: Readonly<Record<string, readonly string[]>>;
  /** Why a store of a schema newer than the reader knows is refused (E_FORMAT), checked before the columns. */
  newer?: (store: SqliteStore) => string | undefined;
  /** The store's sessions, in its order: a session's place in it is its unit, whatever the selection. */
  rows: (store: SqliteStore) => Row[];
  /** One session as its item. */
  item: (store: SqliteStore, row: Row, index: number) => InputItem;
}

/**
 * The sessions of an agent's SQLite store, each one unit (see readStore): a store of a newer schema, or one lacking a
 * column the reader needs, is one error for the file; `options.sessions` selects the sessions read (by `id`).
 */
export async function* readStoreSessions(file: string, options: ReadOptions, shape: StoreSessions): AsyncGenerator<InputItem> {
  const selected = options.sessions?.[file];
  yield* readStore(file, function* (store) {
    const newer = shape.newer?.(store);
    const missing = newer === undefined ? missingColumns(store, shape.required) : undefined;
    if (newer !== undefined || missing !== undefined) {
      const [code, message] =
        newer !== undefined ? (['E_FORMAT', newer] as const) : (['E_SCHEMA', `not ${shape.kind} this version knows: no ${missing}`] as const);
      yield errorItem({ file, line: 1, byteOffset: 0 }, code, `${file}: ${message}`);
      return;
    }
    // A session keeps its position in the store whatever the selection, so its unit is the same in every run.
    for (const [index, row] of shape.rows(store).entries())
      if (selected === undefined || selected.includes(String(row.id))) yield shape.item(store, row, index);
  });
}
