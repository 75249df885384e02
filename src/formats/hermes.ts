import type { Message } from '../model/message.js';
import type { Row, SqliteStore } from '../sqlite/database.js';
import { errorItem, finishTranscript, isObject } from './_items.js';
import { missingColumns, parseColumn, readStoreSessions, sessionPosition } from './_sqlite-store.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Hermes Agent's state store (`~/.hermes/state.db`, `$HERMES_HOME/state.db`), from its source: NousResearch/hermes-agent
 * `hermes_state.py` (`SessionDB`, `DEFAULT_DB_PATH`) and its schema (`SCHEMA_SQL`: `sessions`, `messages`). One
 * transcript per row of `sessions` (one unit each, in order of `started_at`), id the session's.
 * - `messages` hold the OpenAI chat messages Hermes sent and received, one row each, in order of `timestamp` then id:
 *   `role` (system, user, assistant, tool), `content`, an assistant's `tool_calls` (JSON, OpenAI's shape) and
 *   `reasoning`, a tool result's `tool_call_id` and `tool_name`. A row whose `tool_calls` does not parse is an E_JSON
 *   error for its session.
 * - Usage only as the session's totals (`input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_write_tokens`,
 *   `reasoning_tokens`, with `model`): metadata.sessionUsage (model/recorded.ts `sessionTotals`), never spread over
 *   the replies; the cost Hermes recorded (`actual_cost_usd`, else `estimated_cost_usd`) in metadata.costUSD.
 * - Hermes compresses a long conversation by ending the session and continuing in a new one whose
 *   `parent_session_id` names it: each is its own transcript, the link kept in metadata.parentSessionId.
 */
export function readHermesState(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  return readStoreSessions(file, options, {
    kind: 'a Hermes state database',
    required: REQUIRED,
    rows: (store) => store.rows('SELECT * FROM sessions ORDER BY started_at, id'),
    item: sessionItem,
  });
}

const REQUIRED = {
  sessions: ['id', 'source', 'model', 'started_at', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'],
  messages: ['id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp'],
} as const;

/**
 * Whether a store is Hermes': its `sessions` (tagged by source, started at a time) and `messages` keyed to them that
 * carry OpenAI's tool call ids. goose's and Crush's stores also have `sessions` and `messages`, but not these columns.
 */
export function isHermesStore(store: SqliteStore): boolean {
  return missingColumns(store, { sessions: ['id', 'source', 'started_at'], messages: ['session_id', 'role', 'tool_call_id', 'timestamp'] }) === undefined;
}

function sessionItem(store: SqliteStore, row: Row, index: number): InputItem {
  const at = sessionPosition(store.file, index);
  const id = String(row.id);
  const messages: Message[] = [];
  for (const m of store.rows('SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id', [id])) {
    const built = message(m);
    if (!built.ok) return errorItem(at, 'E_JSON', `${store.file}: session ${id}, message ${String(m.id)}: ${built.message}`);
    messages.push(built.value);
  }
  const metadata: Record<string, unknown> = { source: { format: 'hermes', file: store.file }, sessionId: id };
  for (const [key, column] of SESSION_FIELDS) if (row[column] !== null && row[column] !== undefined) metadata[key] = row[column];
  const model = typeof row.model === 'string' && row.model.trim() !== '' ? row.model.trim() : undefined;
  const usage = {
    input_tokens: num(row.input_tokens),
    cache_creation_input_tokens: num(row.cache_write_tokens),
    cache_read_input_tokens: num(row.cache_read_tokens),
    output_tokens: num(row.output_tokens),
    thinking_tokens: num(row.reasoning_tokens),
  };
  if (Object.values(usage).some((n) => n > 0)) metadata.sessionUsage = { ...(model === undefined ? {} : { model }), usage };
  const cost = [row.actual_cost_usd, row.estimated_cost_usd].find((c): c is number => typeof c === 'number' && Number.isFinite(c) && c >= 0);
  if (cost !== undefined) metadata.costUSD = cost;
  return finishTranscript({ id, messages, metadata }, at, 1, `${store.file}: session ${id}: `);
}

/** Session columns kept in metadata, by metadata key. */
const SESSION_FIELDS: readonly [string, string][] = [
  ['title', 'title'],
  ['platform', 'source'],
  ['model', 'model'],
  ['billingProvider', 'billing_provider'],
  ['parentSessionId', 'parent_session_id'],
  ['startedAt', 'started_at'],
  ['endedAt', 'ended_at'],
  ['endReason', 'end_reason'],
  ['messageCount', 'message_count'],
  ['apiCallCount', 'api_call_count'],
  ['cwd', 'cwd'],
];

type Built = { ok: true; value: Message } | { ok: false; message: string };

function message(m: Row): Built {
  const content = typeof m.content === 'string' ? m.content : '';
  const extra: Record<string, unknown> = typeof m.timestamp === 'number' ? { timestamp: new Date(m.timestamp * 1000).toISOString() } : {};
  if (m.role === 'tool') {
    const out: Message = { role: 'tool', tool_call_id: String(m.tool_call_id ?? ''), content, ...extra };
    if (typeof m.tool_name === 'string') out.name = m.tool_name;
    return { ok: true, value: out };
  }
  if (m.role === 'assistant') {
    const out: Record<string, unknown> = { role: 'assistant', content: m.content === null ? null : content, ...extra };
    if (m.tool_calls !== null && m.tool_calls !== undefined && m.tool_calls !== '') {
      const calls = parseColumn(m.tool_calls, 'tool_calls');
      if (!calls.ok) return { ok: false, message: calls.message };
      if (!Array.isArray(calls.value) || !calls.value.every(isObject)) return { ok: false, message: 'tool_calls: not a list of calls' };
      if (calls.value.length > 0) out.tool_calls = calls.value.map(toolCall);
    }
    if (typeof m.reasoning === 'string' && m.reasoning !== '') out.reasoning_content = m.reasoning;
    if (typeof m.finish_reason === 'string') out.finish_reason = m.finish_reason;
    return { ok: true, value: out as Message };
  }
  if (m.role === 'system' || m.role === 'user') return { ok: true, value: { role: m.role, content, ...extra } as Message };
  return { ok: false, message: `unknown role ${JSON.stringify(m.role)}` };
}

/** An OpenAI tool call as Hermes stored it; arguments kept as the JSON text the model wrote. */
function toolCall(c: Record<string, unknown>): Record<string, unknown> {
  const fn = isObject(c.function) ? c.function : {};
  const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
  return { id: String(c.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: args } };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0);

/** Each session of a store with what discovery filters on: its times (seconds), its folder, the bytes of its messages. */
export function hermesStoreSessions(store: SqliteStore): { id: string; start: unknown; end: unknown; projects: unknown[]; bytes: unknown }[] {
  const columns = store.tables().get('sessions') ?? new Set<string>();
  const cwd = columns.has('cwd') ? 's.cwd' : 'NULL';
  const rows = store.rows(
    `SELECT s.id, s.started_at, s.ended_at, ${cwd} AS cwd,
       (SELECT coalesce(sum(length(content)) + sum(length(coalesce(tool_calls, ''))), 0) FROM messages m WHERE m.session_id = s.id) AS bytes,
       (SELECT max(timestamp) FROM messages m WHERE m.session_id = s.id) AS last
     FROM sessions s ORDER BY s.started_at, s.id`,
  );
  return rows.map((r) => ({ id: String(r.id), start: r.started_at, end: r.ended_at ?? r.last, projects: [r.cwd], bytes: r.bytes }));
}
