import type { Row, SqliteStore } from '../sqlite/database.js';
import { errorItem, isObject, skippedItem } from './_items.js';
import { missingColumns, parseColumn, readStoreSessions, sessionPosition } from './_sqlite-store.js';
import { gooseSession } from './goose.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * The newest schema of goose's `sessions.db` this reader knows (block/goose crates/goose/src/session/migrations.rs
 * `CURRENT_SCHEMA_VERSION`). goose records each migration in `schema_version`; a store past this one may have moved a
 * column this reader reads, so it is refused rather than half read.
 */
export const GOOSE_SCHEMA_VERSION = 13;

/**
 * The columns this reader needs (storage.rs `create_schema`; every version since the store replaced the session files
 * has them). Later columns (`name` v4, `session_type` v5, `provider_name` and `model_config_json` v6, `message_id` v7,
 * `accumulated_cost` v13) are read when present.
 */
const REQUIRED = {
  sessions: ['id', 'description', 'working_dir', 'created_at', 'updated_at'],
  messages: ['id', 'session_id', 'role', 'content_json', 'created_timestamp', 'timestamp'],
} as const;

/**
 * Whether a store is goose's: `sessions` with a `working_dir`, and `messages` keyed to a session holding each
 * message's `content_json` and `created_timestamp`. Crush's store has tables of the same names and none of these
 * columns.
 */
export function isGooseStore(store: SqliteStore): boolean {
  return missingColumns(store, { sessions: ['id', 'working_dir'], messages: ['session_id', 'role', 'content_json', 'created_timestamp'] }) === undefined;
}

/**
 * goose's SQLite store (`sessions.db`): one transcript per session that has messages (one unit each, in order of
 * creation), its rows given back as goose's `get_conversation` does (messages in `timestamp` order, then insertion)
 * and read by the goose reader (goose.ts) as the session file's lines are, so compaction reads the same: the
 * agent-only summary after hidden messages. A session without messages (goose creates one before the first prompt) is
 * a counted skip, `goose/empty-session`. Usage: goose keeps only session totals (`accumulated_*_tokens`, else the last
 * request's `*_tokens`), kept as metadata.sessionUsage as ccusage reads them, never spread over the replies.
 * `options.sessions` selects sessions of the store. A store of a newer schema version, or lacking a column this reads,
 * is one error for the file; a row whose JSON does not parse is an E_JSON error for its session.
 */
export function readGooseDatabase(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  return readStoreSessions(file, options, {
    kind: 'a goose database',
    required: REQUIRED,
    newer: (store) => {
      const version = schemaVersion(store);
      return version !== undefined && version > GOOSE_SCHEMA_VERSION
        ? `a goose database of schema version ${version}, newer than the ${GOOSE_SCHEMA_VERSION} this version reads`
        : undefined;
    },
    rows: (store) => store.rows('SELECT * FROM sessions ORDER BY created_at, id'),
    item: sessionItem,
  });
}

/** The store's schema version (goose's `get_schema_version`: the highest in `schema_version`), when it records one. */
function schemaVersion(store: SqliteStore): number | undefined {
  if (!store.tables().has('schema_version')) return undefined;
  const [row] = store.rows('SELECT MAX(version) AS version FROM schema_version');
  return typeof row?.version === 'number' ? row.version : undefined;
}

function sessionItem(store: SqliteStore, row: Row, index: number): InputItem {
  const at = sessionPosition(store.file, index);
  const id = String(row.id);
  const messages = store.rows('SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id', [id]);
  if (messages.length === 0) return skippedItem(at, 'goose/empty-session');
  const records: unknown[] = [sessionRecord(row)];
  for (const m of messages) {
    const what = `session ${id}, message ${String(m.message_id ?? m.id)}`;
    const content = parseColumn(m.content_json, what);
    if (!content.ok) return errorItem(at, 'E_JSON', `${store.file}: ${content.message}`);
    const metadata = m.metadata_json === null || m.metadata_json === undefined ? { ok: true as const, value: {} } : parseColumn(m.metadata_json, what);
    if (!metadata.ok) return errorItem(at, 'E_JSON', `${store.file}: ${metadata.message}`);
    records.push({
      ...(typeof m.message_id === 'string' ? { id: m.message_id } : {}),
      role: m.role,
      created: m.created_timestamp,
      content: content.value,
      metadata: metadata.value,
    });
  }
  return gooseSession(records, at, { source: { format: 'goose-db', file: store.file }, ...storeMetadata(row) });
}

/** The session's row as the session file's metadata line held it (legacy.rs), which the goose reader reads. */
function sessionRecord(row: Row): Record<string, unknown> {
  const name = typeof row.name === 'string' && row.name !== '' ? row.name : row.description;
  const record: Record<string, unknown> = { id: String(row.id), working_dir: row.working_dir, description: name };
  for (const key of ['schedule_id', 'project_id', 'created_at', 'updated_at', 'provider_name'] as const) if (row[key] !== undefined) record[key] = row[key];
  for (const kind of ['total', 'input', 'output'] as const) {
    record[`${kind}_tokens`] = row[`${kind}_tokens`];
    record[`accumulated_${kind}_tokens`] = row[`accumulated_${kind}_tokens`];
  }
  return record;
}

/** What the store records of a session beyond its file's metadata: its type, model, cost and usage totals. */
function storeMetadata(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof row.session_type === 'string') out.sessionType = row.session_type;
  const model = modelOf(row.model_config_json);
  // `models` names what the replay bills the session as (replay/billing/cache-choice.ts).
  if (model !== undefined) out.models = [model];
  if (typeof row.accumulated_cost === 'number') out.accumulatedCost = row.accumulated_cost;
  const usage = sessionUsage(row);
  if (usage !== undefined) out.sessionUsage = { ...(model !== undefined ? { model } : {}), usage };
  return out;
}

/** `model_config_json`'s `model_name` (goose's `ModelConfig`). */
function modelOf(config: unknown): string | undefined {
  if (typeof config !== 'string') return undefined;
  const parsed = parseColumn(config, 'model_config_json');
  if (!parsed.ok || !isObject(parsed.value) || typeof parsed.value.model_name !== 'string') return undefined;
  const name = parsed.value.model_name.trim();
  return name === '' ? undefined : name;
}

/**
 * The session's tokens as goose keeps them: the `accumulated_*` counters over every request, else the last request's
 * (sessions of versions before the counters). The total beyond input and output is the thinking the provider counted
 * apart (ccusage's goose adapter reads the same columns the same way).
 */
function sessionUsage(row: Row): Record<string, number> | undefined {
  const positive = (...values: unknown[]) => values.find((v): v is number => typeof v === 'number' && v > 0);
  const input = positive(row.accumulated_input_tokens, row.input_tokens) ?? 0;
  const output = positive(row.accumulated_output_tokens, row.output_tokens) ?? 0;
  const total = positive(row.accumulated_total_tokens, row.total_tokens) ?? input + output;
  if (input === 0 && output === 0 && total === 0) return undefined;
  return { input_tokens: input, output_tokens: output, thinking_tokens: Math.max(0, total - input - output) };
}

/** Each session of the store that has messages, with what discovery filters on (times in seconds since the epoch). */
export function gooseStoreSessions(store: SqliteStore): { id: string; start: unknown; end: unknown; projects: unknown[]; bytes: unknown }[] {
  const project = store.tables().get('sessions')?.has('project_id') === true ? 's.project_id' : 'NULL';
  const rows = store.rows(
    `SELECT s.id, s.working_dir, ${project} AS project_id,
       CAST(strftime('%s', s.created_at) AS INTEGER) AS start,
       max(CAST(strftime('%s', s.updated_at) AS INTEGER), max(m.created_timestamp)) AS end,
       sum(length(m.content_json) + coalesce(length(m.metadata_json), 0)) AS bytes
     FROM sessions s JOIN messages m ON m.session_id = s.id
     GROUP BY s.id ORDER BY s.created_at, s.id`,
  );
  return rows.map((r) => ({ id: String(r.id), start: r.start, end: r.end, projects: [r.working_dir, r.project_id], bytes: r.bytes }));
}
