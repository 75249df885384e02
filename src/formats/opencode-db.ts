import type { Row, SqliteStore } from '../sqlite/database.js';
import { errorItem, isObject } from './_items.js';
import { missingColumns, parseColumn, readStoreSessions, sessionPosition } from './_sqlite-store.js';
import { opencodeSession } from './opencode.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * The tables and columns of OpenCode's database this reader needs (packages/opencode/src/session/session.sql.ts,
 * drizzle): `session` holds each session's info as columns, `message` and `part` hold each record's storage JSON less
 * its ids in `data`. Kilo CLI keeps the same tables (Kilo-Org/kilocode, same file).
 */
const REQUIRED = {
  session: ['id', 'project_id', 'parent_id', 'slug', 'directory', 'title', 'version', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'message_id', 'session_id', 'data'],
} as const;

/**
 * Whether a store is OpenCode's (or Kilo's): its `session`, `message` and `part` tables, a message keyed to its session
 * and a part to its message. A store of this shape that lacks another column the reader needs (a later schema) is
 * still OpenCode's, and its reading says which column is missing.
 */
export function isOpenCodeStore(store: SqliteStore): boolean {
  return missingColumns(store, { session: ['id'], message: ['id', 'session_id'], part: ['id', 'message_id', 'session_id'] }) === undefined;
}

/**
 * OpenCode's SQLite database (`opencode.db`, `opencode-<channel>.db`) and Kilo CLI's (`kilo.db`): one transcript per
 * session (one unit each, in order of creation), rebuilt as the `{info, parts}` list an export holds and read by the
 * OpenCode reader (opencode.ts). As OpenCode itself lists them, messages come in order of `time_created` then id,
 * parts in id order; each row's ids go back into its `data` (json-migration.ts took them out). `options.sessions`
 * selects sessions of the store. A store whose tables
 * lack a column this needs (a schema this version does not know) is one E_SCHEMA error; a row whose data does not
 * parse is an E_JSON error for its session.
 */
export function readOpenCodeDatabase(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  return readStoreSessions(file, options, {
    kind: 'an OpenCode database',
    required: REQUIRED,
    rows: (store) => store.rows('SELECT * FROM session ORDER BY time_created, id'),
    item: sessionItem,
  });
}

function sessionItem(store: SqliteStore, row: Row, index: number): InputItem {
  const at = sessionPosition(store.file, index);
  const id = String(row.id);
  const info = sessionInfo(row);
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const p of store.rows('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id', [id])) {
    const data = parseColumn(p.data, `session ${id}, part ${String(p.id)}`);
    if (!data.ok || !isObject(data.value))
      return errorItem(at, 'E_JSON', `${store.file}: ${data.ok ? `session ${id}, part ${String(p.id)}: not an object` : data.message}`);
    const messageId = String(p.message_id);
    const list = parts.get(messageId) ?? [];
    list.push({ id: String(p.id), sessionID: id, messageID: messageId, ...data.value });
    parts.set(messageId, list);
  }
  const list: unknown[] = [];
  for (const m of store.rows('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id', [id])) {
    const data = parseColumn(m.data, `session ${id}, message ${String(m.id)}`);
    if (!data.ok || !isObject(data.value))
      return errorItem(at, 'E_JSON', `${store.file}: ${data.ok ? `session ${id}, message ${String(m.id)}: not an object` : data.message}`);
    list.push({ info: { id: String(m.id), sessionID: id, ...data.value }, parts: parts.get(String(m.id)) ?? [] });
  }
  return opencodeSession(info, list, at, { format: 'opencode-db', file: store.file });
}

/** The session's info as OpenCode's JSON storage held it (json-migration.ts maps each field to its column). */
function sessionInfo(row: Row): Record<string, unknown> {
  const info: Record<string, unknown> = { id: String(row.id), slug: row.slug, version: row.version, projectID: row.project_id, directory: row.directory };
  if (row.parent_id !== null) info.parentID = row.parent_id;
  info.title = row.title;
  const time: Record<string, unknown> = { created: row.time_created, updated: row.time_updated };
  if (row.time_compacting !== null && row.time_compacting !== undefined) time.compacting = row.time_compacting;
  if (row.time_archived !== null && row.time_archived !== undefined) time.archived = row.time_archived;
  info.time = time;
  return info;
}

/** Each session of a store with what discovery filters on: its times, its folder and project, the bytes of its rows. */
export function openCodeStoreSessions(store: SqliteStore): { id: string; start: unknown; end: unknown; projects: unknown[]; bytes: unknown }[] {
  const rows = store.rows(
    `SELECT s.id, s.time_created, s.time_updated, s.directory, s.project_id,
       (SELECT coalesce(sum(length(data)), 0) FROM message m WHERE m.session_id = s.id)
       + (SELECT coalesce(sum(length(data)), 0) FROM part p WHERE p.session_id = s.id) AS bytes
     FROM session s ORDER BY s.time_created, s.id`,
  );
  return rows.map((r) => ({ id: String(r.id), start: r.time_created, end: r.time_updated, projects: [r.directory, r.project_id], bytes: r.bytes }));
}
