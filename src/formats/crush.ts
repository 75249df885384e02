import { basename, dirname } from 'node:path';
import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import type { Row, SqliteStore } from '../sqlite/database.js';
import { errorItem, finishTranscript, isObject, skippedItem, summaryCompactions } from './_items.js';
import { missingColumns, parseColumn, readStoreSessions, sessionPosition } from './_sqlite-store.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * The newest of Crush's migrations this reader knows (charmbracelet/crush internal/db/migrations/, recorded in
 * `goose_db_version` by the pressly/goose migration tool). A store past it may have moved a column this reader reads,
 * so it is refused rather than half read.
 */
export const CRUSH_MIGRATION = 20260127000000;

/** The columns this reader needs (the initial migration's; `provider`, `is_summary_message` and `summary_message_id` came later and are read when present). */
const REQUIRED = {
  sessions: ['id', 'parent_session_id', 'title', 'prompt_tokens', 'completion_tokens', 'cost', 'created_at', 'updated_at'],
  messages: ['id', 'session_id', 'role', 'parts', 'model', 'created_at'],
} as const;

/**
 * Whether a store is Crush's: `sessions` holding Crush's usage columns (`prompt_tokens`, `completion_tokens`, `cost`)
 * and `messages` keyed to a session holding each message's `parts`. goose's store has tables of the same names and
 * none of these columns.
 */
export function isCrushStore(store: SqliteStore): boolean {
  return (
    missingColumns(store, { sessions: ['id', 'title', 'prompt_tokens', 'completion_tokens', 'cost'], messages: ['id', 'session_id', 'role', 'parts'] }) ===
    undefined
  );
}

/**
 * Crush's project store (`<project>/.crush/crush.db`): one transcript per session that has messages (one unit each,
 * in order of creation; a sub-agent's session is its own, with its parent named), messages in Crush's order
 * (`created_at`, then insertion). Each message's `parts` is a list of `{type, data}` (internal/message/message.go
 * `marshalParts`):
 * - `user`: `text` -> text, `image_url` -> image part, `binary` -> an image part (`data:MIME;base64,Data`) when it is
 *   an image; `assistant`: `reasoning` -> `reasoning_content`, `text` -> content, `tool_call` -> tool calls
 *   (`input` is the arguments' JSON text); `tool`: each `tool_result` -> a `tool` message (`is_error` kept; an image
 *   result's `data` and `mime_type` as an image part); `system`: text. `finish` parts end each message and hold no
 *   content; other parts (a bang-mode `shell_command`, a non-image binary) are counted in metadata.skippedParts.
 * - Compaction: Crush summarises by adding an assistant message flagged `is_summary_message` and pointing the session's
 *   `summary_message_id` at it; from then on it sends that message, as a user message, and what follows. Each summary
 *   becomes that user message, marked `is_compact_summary` and listed in metadata.compactions.
 * - Usage: Crush keeps no usage per message. The session row holds the last request's tokens (`prompt_tokens`, input
 *   plus cache reads; `completion_tokens`) and a running cost in USD: kept as they are in metadata.lastRequestUsage and
 *   metadata.cost, neither a total nor per call, so the replay has no recorded usage to compare with.
 * `options.sessions` selects sessions of the store. A store past the migrations this version knows, or lacking a column
 * it reads, is one error for the file; a message whose parts do not parse is an E_JSON error for its session.
 */
export function readCrushDatabase(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  return readStoreSessions(file, options, {
    kind: 'a Crush database',
    required: REQUIRED,
    newer: (store) => {
      if (store.tables().get('goose_db_version')?.has('version_id') !== true) return undefined;
      const [row] = store.rows('SELECT MAX(version_id) AS version FROM goose_db_version WHERE is_applied = 1');
      return typeof row?.version === 'number' && row.version > CRUSH_MIGRATION
        ? `a Crush database migrated to ${row.version}, past ${CRUSH_MIGRATION}, the last migration this version reads`
        : undefined;
    },
    rows: (store) => store.rows('SELECT * FROM sessions ORDER BY created_at, id'),
    item: sessionItem,
  });
}

/** The project a store belongs to: the folder holding its `.crush` data folder (Crush's default layout). */
export function crushProjectOf(file: string): string | undefined {
  const data = dirname(file);
  return basename(data) === '.crush' ? dirname(data) : undefined;
}

function sessionItem(store: SqliteStore, row: Row, index: number): InputItem {
  const at = sessionPosition(store.file, index);
  const id = String(row.id);
  const rows = store.rows('SELECT * FROM messages WHERE session_id = ? ORDER BY created_at, rowid', [id]);
  if (rows.length === 0) return skippedItem(at, 'crush/empty-session');
  const builder = new SessionBuilder(typeof row.summary_message_id === 'string' ? row.summary_message_id : undefined);
  for (const m of rows) {
    const parts = parseColumn(m.parts, `session ${id}, message ${String(m.id)}`);
    if (!parts.ok) return errorItem(at, 'E_JSON', `${store.file}: ${parts.message}`);
    const error = Array.isArray(parts.value) ? builder.message(m, parts.value) : 'parts: not a list';
    if (error !== undefined) return errorItem(at, 'E_SCHEMA', `${store.file}: session ${id}, message ${String(m.id)}: ${error}`);
  }
  const metadata: Record<string, unknown> = { source: { format: 'crush', file: store.file }, sessionId: id, title: row.title };
  if (typeof row.parent_session_id === 'string') metadata.parentSessionId = row.parent_session_id;
  const project = crushProjectOf(store.file);
  // `directory`, as OpenCode's, is what reports group by (model/project.ts).
  if (project !== undefined) metadata.directory = project;
  metadata.lastRequestUsage = { prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens };
  metadata.cost = row.cost;
  Object.assign(metadata, builder.metadata());
  return finishTranscript({ id, messages: builder.messages, metadata, indexedMetadata: summaryCompactions(builder.summaries) }, at, 1);
}

class SessionBuilder {
  readonly messages: Message[] = [];
  readonly summaries: number[] = [];
  private readonly skipped: Record<string, number> = {};
  private readonly models = new Set<string>();

  constructor(private readonly summaryId: string | undefined) {}

  message(row: Row, list: unknown[]): string | undefined {
    const parts = list.filter(isObject).map((p) => ({ type: p.type, data: isObject(p.data) ? p.data : {} }));
    const summary = row.is_summary_message === 1 || (this.summaryId !== undefined && row.id === this.summaryId);
    if (summary) return this.summary(parts);
    if (row.role === 'user') this.user(parts);
    else if (row.role === 'assistant') this.assistant(parts, row);
    else if (row.role === 'tool') this.tool(parts);
    else if (row.role === 'system') this.system(parts);
    else return `role ${JSON.stringify(row.role)}: expected user, assistant, tool or system`;
    return undefined;
  }

  metadata(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.models.size > 0) out.models = [...this.models];
    if (Object.keys(this.skipped).length > 0) out.skippedParts = this.skipped;
    return out;
  }

  private skip(type: unknown): void {
    const key = typeof type === 'string' ? type : 'unknown';
    this.skipped[key] = (this.skipped[key] ?? 0) + 1;
  }

  /** Crush sends a summary as a user message (agent.go `getSessionMessages`). */
  private summary(parts: Part[]): undefined {
    const texts = parts.flatMap((p) => (p.type === 'text' && typeof p.data.text === 'string' ? [p.data.text] : []));
    this.summaries.push(this.messages.length);
    this.messages.push({ role: 'user', content: texts.join('\n'), is_compact_summary: true });
    return undefined;
  }

  private user(parts: Part[]): void {
    const content: ContentPart[] = [];
    for (const p of parts) {
      const part = contentPart(p);
      if (part) content.push(part);
      else if (p.type !== 'finish') this.skip(p.type);
    }
    if (content.length === 0) return;
    this.messages.push({ role: 'user', content: content.length === 1 && content[0].type === 'text' ? content[0].text : content });
  }

  private system(parts: Part[]): void {
    const texts: string[] = [];
    for (const p of parts) {
      if (p.type === 'text' && typeof p.data.text === 'string') texts.push(p.data.text);
      else if (p.type !== 'finish') this.skip(p.type);
    }
    if (texts.length > 0) this.messages.push({ role: 'system', content: texts.join('\n') });
  }

  private assistant(parts: Part[], row: Row): void {
    const texts: string[] = [];
    const reasoning: string[] = [];
    const calls: ToolCall[] = [];
    for (const { type, data } of parts) {
      if (type === 'text' && typeof data.text === 'string') texts.push(data.text);
      else if (type === 'reasoning' && typeof data.thinking === 'string') {
        if (data.thinking !== '') reasoning.push(data.thinking);
      } else if (type === 'tool_call' && typeof data.id === 'string' && typeof data.name === 'string')
        calls.push({
          id: data.id,
          type: 'function',
          function: { name: data.name, arguments: typeof data.input === 'string' && data.input !== '' ? data.input : '{}' },
        });
      else if (type !== 'finish') this.skip(type);
    }
    const message: AssistantMessage = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
    if (calls.length > 0) message.tool_calls = calls;
    if (typeof row.model === 'string' && row.model !== '') {
      message.model = row.model;
      this.models.add(row.model);
    }
    this.messages.push(message);
  }

  private tool(parts: Part[]): void {
    for (const { type, data } of parts) {
      if (type === 'tool_result' && typeof data.tool_call_id === 'string') this.messages.push(toolResult(data));
      else if (type !== 'finish') this.skip(type);
    }
  }
}

type Part = { type: unknown; data: Record<string, unknown> };

/** A tool result (content.go `ToolResult`): its text, and an image it returned (`data` base64, `mime_type`). */
function toolResult(data: Record<string, unknown>): ToolMessage {
  const text = typeof data.content === 'string' ? data.content : '';
  const image = typeof data.mime_type === 'string' && data.mime_type.startsWith('image/') && typeof data.data === 'string' && data.data !== '';
  const message: ToolMessage = {
    role: 'tool',
    tool_call_id: String(data.tool_call_id),
    content: image
      ? [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: `data:${String(data.mime_type)};base64,${String(data.data)}` } },
        ]
      : text,
  };
  if (data.is_error === true) message.is_error = true;
  return message;
}

/** A user part: text, an image URL, or an attached image (`BinaryContent` has no JSON tags: `Path`, `MIMEType`, `Data`). */
function contentPart({ type, data }: Part): ContentPart | undefined {
  if (type === 'text' && typeof data.text === 'string') return { type: 'text', text: data.text };
  if (type === 'image_url' && typeof data.url === 'string') return { type: 'image_url', image_url: { url: data.url } };
  if (type === 'binary' && typeof data.MIMEType === 'string' && data.MIMEType.startsWith('image/') && typeof data.Data === 'string')
    return { type: 'image_url', image_url: { url: `data:${data.MIMEType};base64,${data.Data}` } };
  return undefined;
}

/** Each session of the store that has messages, with what discovery filters on (times in seconds since the epoch). */
export function crushStoreSessions(store: SqliteStore): { id: string; start: unknown; end: unknown; projects: unknown[]; bytes: unknown }[] {
  const project = crushProjectOf(store.file);
  const rows = store.rows(
    `SELECT s.id, s.created_at AS start, max(s.updated_at, max(m.created_at)) AS end, sum(length(m.parts)) AS bytes
     FROM sessions s JOIN messages m ON m.session_id = s.id
     GROUP BY s.id ORDER BY s.created_at, s.id`,
  );
  return rows.map((r) => ({ id: String(r.id), start: r.start, end: r.end, projects: [project], bytes: r.bytes }));
}
