import { decompress } from 'fzstd';
import type { Message } from '../model/message.js';
import type { Row, SqliteStore } from '../sqlite/database.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { errorItem, finishTranscript, isObject } from './_items.js';
import { missingColumns, readStoreSessions, sessionPosition } from './_sqlite-store.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Zed's agent threads (`threads/threads.db` in Zed's data folder), from Zed's source: crates/agent/src/db.rs
 * (`ThreadsDatabase`, `DbThread`, version 0.3.0), crates/agent/src/thread.rs (`Message`, `UserMessageContent`,
 * `AgentMessageContent`), crates/agent/src/legacy_thread.rs (`SerializedThread` 0.1.0 and 0.2.0, which Zed still
 * upgrades on load) and crates/language_model (`TokenUsage`, `LanguageModelToolResultContent`). One transcript per
 * row of `threads` (one unit each, in the order the rows were first written: rowid), id the thread's.
 * - `data` is the thread's JSON, as text (`data_type` `json`) or compressed with Zstandard (`zstd`, what Zed writes).
 * - 0.3.0 (externally tagged enums): `{User: {id, content}}` (`Text`, `Mention {uri, content}`, `Image`),
 *   `{Agent: {content, tool_results}}` (`Text`, `Thinking {text, signature}`, `RedactedThinking`, `ToolUse {id, name,
 *   input, raw_input}`; `tool_results` by tool use id, each `{tool_use_id, is_error, content}`) and `"Resume"` (the
 *   user's continue after an interruption, counted in metadata.resumes). One Agent message per model call.
 * - Legacy: messages `{id, role, segments: [{type: text | thinking | RedactedThinking}], tool_uses, tool_results,
 *   context}` (0.1.0 put the results on the next user message, 0.2.0 on the assistant's; threads without a version
 *   have one `text`); `system` messages are skipped by Zed's own upgrade, and here counted in metadata.
 * - Usage as recorded, in Anthropic's names (`input_tokens` uncached, `cache_creation_input_tokens`,
 *   `cache_read_input_tokens`, `output_tokens`): legacy threads keep each call's (`request_token_usage[i]` for the
 *   assistant message at i); 0.3.0 keeps, per user message id, the last call of that turn only, so the turn's other
 *   calls are marked `unpriced_request` and counted in metadata.unrecordedCalls. The thread's
 *   `cumulative_token_usage` is kept in metadata.
 * - A thread of a version this reader does not know (Zed's own reader would refuse it too) is an E_SCHEMA error for
 *   that thread, as is an unknown `data_type`; data that does not decode is E_JSON. Zed records no compaction.
 */
export function readZedThreads(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  return readStoreSessions(file, options, {
    kind: 'a Zed threads database',
    required: REQUIRED,
    rows: (store) => {
      const columns = store.tables().get('threads') ?? new Set<string>();
      const extra = OPTIONAL.filter((c) => columns.has(c))
        .map((c) => `, ${c}`)
        .join('');
      return store.rows(`SELECT id, summary, updated_at, data_type, data${extra} FROM threads ORDER BY rowid`);
    },
    item: (store, row, index) => threadItem(store.file, row, index),
  });
}

const REQUIRED = { threads: ['id', 'summary', 'updated_at', 'data_type', 'data'] } as const;
/** Columns later versions added (db.rs migrations). */
const OPTIONAL = ['parent_id', 'folder_paths', 'created_at'] as const;

/**
 * Whether a store is Zed's: a `threads` table with Zed's keys (id, summary, updated_at). A store of this shape that
 * lacks another column the reader needs (a later schema) is still Zed's, and its reading says which column is missing.
 */
export function isZedStore(store: SqliteStore): boolean {
  return missingColumns(store, { threads: ['id', 'summary', 'updated_at'] }) === undefined;
}

function threadItem(file: string, row: Row, index: number): InputItem {
  const at = sessionPosition(file, index);
  const id = String(row.id);
  const decoded = threadJson(row);
  if (!decoded.ok) return errorItem(at, decoded.code, `${file}: thread ${id}: ${decoded.message}`);
  const thread = decoded.value;
  const version = thread.version;
  if (version !== undefined && version !== CURRENT && !LEGACY.has(version as string))
    return errorItem(
      at,
      'E_SCHEMA',
      `${file}: thread ${id}: a thread of version ${JSON.stringify(version)}, which this version does not know (known: ${CURRENT}, ${[...LEGACY].join(', ')})`,
    );
  const built = version === CURRENT ? currentThread(thread) : legacyThread(thread);
  const metadata: Record<string, unknown> = { source: { format: 'zed', file }, threadId: id, title: row.summary, ...built.metadata };
  if (typeof thread.version === 'string') metadata.version = thread.version;
  metadata.updated_at = row.updated_at;
  if (typeof row.created_at === 'string') metadata.created_at = row.created_at;
  if (typeof row.parent_id === 'string') metadata.parentThreadId = row.parent_id;
  const folders = typeof row.folder_paths === 'string' && row.folder_paths !== '' ? row.folder_paths.split('\n') : [];
  if (folders.length > 0) {
    metadata.folders = folders;
    metadata.cwd = folders[0];
  }
  if (isObject(thread.model)) metadata.model = thread.model;
  if (isObject(thread.cumulative_token_usage)) metadata.cumulative_token_usage = thread.cumulative_token_usage;
  return finishTranscript({ id, messages: built.messages, metadata }, at, 1, `${file}: thread ${id}: `);
}

type Decoded = { ok: true; value: Record<string, unknown> } | { ok: false; code: 'E_JSON' | 'E_SCHEMA'; message: string };

/** The row's thread JSON: `data` as text, or Zstandard-compressed; an unknown `data_type` is a schema this version does not know. */
function threadJson(row: Row): Decoded {
  const data = row.data;
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data instanceof Uint8Array ? data : undefined;
  if (bytes === undefined) return { ok: false, code: 'E_SCHEMA', message: 'data is neither text nor a blob' };
  let text: string;
  try {
    if (row.data_type === 'zstd') text = new TextDecoder('utf-8', { fatal: true }).decode(decompress(bytes));
    else if (row.data_type === 'json') text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    else return { ok: false, code: 'E_SCHEMA', message: `unknown data_type ${JSON.stringify(row.data_type)} (known: json, zstd)` };
  } catch (err) {
    return { ok: false, code: 'E_JSON', message: `its ${String(row.data_type)} data does not decode: ${(err as Error).message}` };
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!isObject(value) || !Array.isArray(value.messages)) return { ok: false, code: 'E_SCHEMA', message: 'expected a thread with messages' };
    return { ok: true, value };
  } catch (err) {
    return { ok: false, code: 'E_JSON', message: (err as Error).message };
  }
}

const CURRENT = '0.3.0';
/** The first agent's versions (legacy_thread.rs), and none: the thread before them. */
const LEGACY = new Set(['0.1.0', '0.2.0']);

interface Built {
  messages: Message[];
  metadata: Record<string, unknown>;
}

/** A thread as the current agent writes it (db.rs `DbThread`). */
function currentThread(thread: Record<string, unknown>): Built {
  const model = modelName(thread.model);
  const usageByTurn = isObject(thread.request_token_usage) ? thread.request_token_usage : {};
  const raw = thread.messages as unknown[];
  // The last Agent message of each turn carries the turn's recorded usage.
  const lastOfTurn = new Map<string, number>();
  let turn: string | undefined;
  for (const [i, m] of raw.entries()) {
    if (isObject(m) && isObject(m.User)) turn = String(m.User.id);
    else if (isObject(m) && isObject(m.Agent) && turn !== undefined) lastOfTurn.set(turn, i);
  }
  const turnAt = new Map([...lastOfTurn].map(([t, i]) => [i, t]));
  const messages: Message[] = [];
  const metadata: Record<string, unknown> = {};
  const count = (key: string) => (metadata[key] = ((metadata[key] as number | undefined) ?? 0) + 1);
  for (const [i, m] of raw.entries()) {
    if (m === 'Resume') {
      count('resumes');
      continue;
    }
    if (isObject(m) && isObject(m.User)) {
      const content = Array.isArray(m.User.content) ? m.User.content.map(userBlock) : [];
      const { tools, user } = userTurnMessages(content, { zed_message_id: m.User.id });
      messages.push(...tools, ...(user ? [user] : []));
      continue;
    }
    if (!isObject(m) || !isObject(m.Agent)) {
      count('unknownMessages');
      continue;
    }
    const blocks = emptyAssistantBlocks();
    for (const c of Array.isArray(m.Agent.content) ? m.Agent.content : []) addAssistantBlock(blocks, agentBlock(c));
    const turnId = turnAt.get(i);
    const usage = turnId === undefined ? undefined : tokenUsage(usageByTurn[turnId]);
    const fields: Record<string, unknown> = model === undefined ? {} : { model };
    if (usage) fields.usage = usage;
    else {
      fields.unpriced_request = true;
      count('unrecordedCalls');
    }
    messages.push(assistantFromBlocks(blocks, fields));
    const results = isObject(m.Agent.tool_results) ? Object.values(m.Agent.tool_results) : [];
    messages.push(...userTurnMessages(results.filter(isObject).map(toolResultBlock)).tools);
  }
  if (model !== undefined) metadata.models = [model];
  return { messages, metadata };
}

/** A thread of Zed's first agent (legacy_thread.rs `SerializedThread`, and the versionless one before it). */
function legacyThread(thread: Record<string, unknown>): Built {
  const model = modelName(thread.model);
  const usage = Array.isArray(thread.request_token_usage) ? thread.request_token_usage : [];
  const messages: Message[] = [];
  const metadata: Record<string, unknown> = {};
  let systemMessages = 0;
  for (const [i, m] of (thread.messages as unknown[]).entries()) {
    if (!isObject(m)) continue;
    const segments: unknown[] = Array.isArray(m.segments) ? m.segments : typeof m.text === 'string' ? [{ type: 'text', text: m.text }] : [];
    const results = (Array.isArray(m.tool_results) ? m.tool_results : []).filter(isObject).map(toolResultBlock);
    if (m.role === 'system') {
      systemMessages++;
      continue;
    }
    if (m.role === 'user') {
      const blocks: unknown[] = [...results];
      if (typeof m.context === 'string' && m.context !== '') blocks.push({ type: 'text', text: m.context });
      for (const s of segments) if (isObject(s) && typeof s.text === 'string') blocks.push({ type: 'text', text: s.text });
      const turn = userTurnMessages(blocks, { zed_message_id: m.id });
      messages.push(...turn.tools, ...(turn.user ? [turn.user] : []));
      continue;
    }
    const blocks = emptyAssistantBlocks();
    for (const s of segments) addAssistantBlock(blocks, legacySegment(s));
    for (const call of Array.isArray(m.tool_uses) ? m.tool_uses : [])
      if (isObject(call)) addAssistantBlock(blocks, { type: 'tool_use', id: call.id, name: call.name, input: call.input });
    const recorded = tokenUsage(usage[i]);
    const fields: Record<string, unknown> = { zed_message_id: m.id, ...(model === undefined ? {} : { model }) };
    if (recorded) fields.usage = recorded;
    else fields.unpriced_request = true;
    messages.push(assistantFromBlocks(blocks, fields));
    messages.push(...userTurnMessages(results).tools);
  }
  if (systemMessages > 0) metadata.systemMessages = systemMessages;
  if (model !== undefined) metadata.models = [model];
  return { messages, metadata };
}

function userBlock(c: unknown): unknown {
  if (!isObject(c)) return c;
  if (typeof c.Text === 'string') return { type: 'text', text: c.Text };
  if (isObject(c.Mention) && typeof c.Mention.content === 'string') return { type: 'text', text: c.Mention.content };
  if (isObject(c.Image) && typeof c.Image.source === 'string')
    return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: c.Image.source } };
  return c;
}

function agentBlock(c: unknown): unknown {
  if (!isObject(c)) return c;
  if (typeof c.Text === 'string') return { type: 'text', text: c.Text };
  if (isObject(c.Thinking)) return { type: 'thinking', thinking: c.Thinking.text, signature: c.Thinking.signature };
  if (typeof c.RedactedThinking === 'string') return { type: 'redacted_thinking', data: c.RedactedThinking };
  if (isObject(c.ToolUse)) {
    const use = c.ToolUse;
    return { type: 'tool_use', id: use.id, name: use.name, input: use.input, ...(typeof use.raw_input === 'string' ? { raw_arguments: use.raw_input } : {}) };
  }
  return c;
}

function legacySegment(s: unknown): unknown {
  if (!isObject(s)) return s;
  if (s.type === 'text') return { type: 'text', text: s.text };
  if (s.type === 'thinking') return { type: 'thinking', thinking: s.text, signature: s.signature };
  if (s.type === 'RedactedThinking') return { type: 'redacted_thinking', data: s.data };
  return s;
}

/** A tool result as an Anthropic block: its content `{Text}`, `{Image}` or (older threads) a plain string. */
function toolResultBlock(r: Record<string, unknown>): Record<string, unknown> {
  const c = r.content;
  const content =
    typeof c === 'string'
      ? c
      : isObject(c) && typeof c.Text === 'string'
        ? c.Text
        : isObject(c) && isObject(c.Image)
          ? [userBlock(c)]
          : JSON.stringify(c ?? '');
  return { type: 'tool_result', tool_use_id: String(r.tool_use_id), content, is_error: r.is_error === true };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** language_model's `TokenUsage`, kept in its (Anthropic's) names; undefined when it records no tokens. */
function tokenUsage(u: unknown): Record<string, number> | undefined {
  if (!isObject(u)) return undefined;
  const usage = {
    input_tokens: num(u.input_tokens),
    cache_creation_input_tokens: num(u.cache_creation_input_tokens),
    cache_read_input_tokens: num(u.cache_read_input_tokens),
    output_tokens: num(u.output_tokens),
  };
  return Object.values(usage).some((n) => n > 0) ? usage : undefined;
}

function modelName(model: unknown): string | undefined {
  return isObject(model) && typeof model.model === 'string' && model.model !== '' ? model.model : undefined;
}

/** Each thread of a store with what discovery filters on: its times, its folders, the bytes of its data. */
export function zedStoreSessions(store: SqliteStore): { id: string; start: unknown; end: unknown; projects: unknown[]; bytes: unknown }[] {
  const columns = store.tables().get('threads') ?? new Set<string>();
  const created = columns.has('created_at') ? 'coalesce(created_at, updated_at)' : 'updated_at';
  const folders = columns.has('folder_paths') ? 'folder_paths' : 'NULL';
  const rows = store.rows(`SELECT id, ${created} AS created, updated_at, ${folders} AS folders, length(data) AS bytes FROM threads ORDER BY rowid`);
  return rows.map((r) => ({
    id: String(r.id),
    start: r.created,
    end: r.updated_at,
    projects: typeof r.folders === 'string' ? r.folders.split('\n') : [],
    bytes: r.bytes,
  }));
}
