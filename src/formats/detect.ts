import { readLines } from '../io/line-reader.js';
import { AGENT_DOCUMENT_SCHEMAS, AGENT_RECORD_SCHEMAS, formatAt, has, messageOf, type JsonDocument, type JsonRecord } from './_detect-agents.js';
import { isObject } from './_items.js';
import { isSqliteFile } from './_sqlite-file.js';
import { peekJson, type JsonSignature } from './_json-peek.js';
import { isAiderHistory } from './aider.js';
import { isLegacySessionMeta } from './codex.js';
import { readJsonl } from './_jsonl.js';
import { check, describeMisses, missOf, schema, type Miss, type Schema, type Verdict } from './_schema.js';
import type { FormatName, ReadOptions } from './types.js';

export type Detection =
  | { ok: true; format: FormatName; layout: 'jsonl' | 'json' }
  /** The file holds no record at all (empty, or blank lines only). */
  | { ok: true; format: undefined; layout: 'jsonl' | 'json' }
  | { ok: false; code: 'E_FORMAT' | 'E_JSON' | 'E_UTF8' | 'E_IO' | 'E_SQLITE'; message: string; layout: 'jsonl' | 'json' };

/**
 * Record types of Claude Code session files: the conversation (`user`, `assistant`, `system`, `attachment`), and the
 * metadata records the 1.x and 2.x clients append (session titles, the last prompt, permission and agent settings,
 * snapshots, context-collapse commits), any of which can be a file's first record (a 2.1 session starts with
 * `permission-mode`). The list is the session store's write switch and its facet keys in Claude Code's bundle.
 */
const CLAUDE_CODE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'attachment',
  'progress',
  'summary',
  'task-summary',
  'custom-title',
  'ai-title',
  'last-prompt',
  'tag',
  'agent-name',
  'agent-color',
  'agent-setting',
  'mode',
  'permission-mode',
  'isolation-latch',
  'worktree-state',
  'pr-link',
  'bridge-session',
  'file-history-snapshot',
  'attribution-snapshot',
  'content-replacement',
  'fork-context-ref',
  'speculation-accept',
  'queue-operation',
  'marble-origami-commit',
  'marble-origami-snapshot',
  'marble-origami-reset',
]);
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** Content block types only the Anthropic Messages API uses. */
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document']);
/** How many lines of a JSONL file detection looks at: the first readable record, and the records its schema checks. */
const FIRST_LINES = 20;

/** JSON Lines formats whose records mix types: each record among the first lines is checked (see AGENT_RECORD_SCHEMAS). */
const RECORD_SCHEMAS: readonly Schema<JsonRecord>[] = [
  schema(
    'codex',
    ['a Codex record type (session_meta, response_item, event_msg, turn_context, compacted)', (r) => CODEX_TYPES.has(r.type as string)],
    ['a payload', (r) => 'payload' in r],
  ),
  schema('codex', ['a 2025 Codex session header ({id, timestamp, instructions?, git?})', isLegacySessionMeta]),
  schema(
    'claude-code',
    ['a Claude Code record type', (r) => CLAUDE_CODE_TYPES.has(r.type as string)],
    [
      'a sessionId, uuid, leafUuid or messageId (speculation-accept, which carries none: a timestamp and timeSavedMs)',
      (r) =>
        ['sessionId', 'uuid', 'leafUuid', 'messageId'].some((k) => k in r) ||
        (r.type === 'speculation-accept' && typeof r.timestamp === 'string' && typeof r.timeSavedMs === 'number'),
    ],
    ['message.content on user and assistant records (not Gemini parts)', (r) => (r.type !== 'user' && r.type !== 'assistant') || hasContent(messageOf(r))],
  ),
  ...AGENT_RECORD_SCHEMAS,
];

/** JSON Lines formats that hold one transcript per line: the first record decides. */
const TRANSCRIPT_LINE_SCHEMAS: readonly Schema<unknown>[] = [
  schema(
    'anthropic',
    ['messages', (v) => isObject(v) && Array.isArray(v.messages)],
    ['Anthropic content blocks or a top-level system', (v) => isAnthropicConversation(v as JsonRecord)],
  ),
  schema('openai', ['messages', (v) => isObject(v) && Array.isArray(v.messages)], ['a string id', (v) => typeof (v as JsonRecord).id === 'string']),
  schema('messages', ['messages or traj', (v) => isObject(v) && (Array.isArray(v.messages) || Array.isArray(v.traj))]),
  schema('messages', ['an array of messages (objects with a role)', (v) => Array.isArray(v) && v.every((m) => isObject(m) && typeof m.role === 'string')]),
  schema(
    'swe-agent',
    ['a history', (v) => isObject(v) && Array.isArray(v.history)],
    [
      'history entries that are messages, not Continue steps ({message, contextItems})',
      (v) => ((v as JsonRecord).history as unknown[]).every((h) => !isObject(h) || !('contextItems' in h)),
    ],
  ),
];

/** Whole-file JSON formats, checked on the first record (see AGENT_DOCUMENT_SCHEMAS); agents' first. */
const DOCUMENT_SCHEMAS: readonly Schema<JsonDocument>[] = [
  ...AGENT_DOCUMENT_SCHEMAS,
  schema(
    'swe-agent',
    ['a root object with a history', ({ sig }) => sig.root === 'object' && has(sig, 'history')],
    [
      'history entries that are messages (role, content), not Gemini parts nor Continue steps ({message, contextItems})',
      ({ sig }) => sig.allKeys.has('role') && sig.allKeys.has('content') && !sig.allKeys.has('parts') && !sig.allKeys.has('contextItems'),
    ],
  ),
  schema(
    'openhands',
    ['an array of events', ({ sig }) => sig.root === 'array' && sig.first === 'object'],
    ['events with action or observation', ({ sig }) => has(sig, 'action') || has(sig, 'observation')],
  ),
  schema(
    'anthropic',
    ['messages', ({ sig }) => sig.first === 'object' && has(sig, 'messages')],
    [
      'Anthropic content blocks or a top-level system',
      ({ sig }) => has(sig, 'system') || [...sig.types].some((t) => ANTHROPIC_BLOCKS.has(t)) || (sig.types.has('image') && sig.allKeys.has('source')),
    ],
  ),
  schema('messages', ['messages or traj', ({ sig }) => sig.first === 'object' && (has(sig, 'messages') || has(sig, 'traj'))]),
  schema('messages', ['an array of messages (objects with a role)', ({ sig }) => sig.root === 'array' && sig.first === 'object' && has(sig, 'role')]),
  schema('messages', ['an array of message lists', ({ sig }) => sig.root === 'array' && sig.first === 'array' && sig.roles.size > 0]),
];

/**
 * Recognises a file's format from its name and its first records, never reading the whole file. A format claims a
 * file only when its own schema holds (the tables above and in `_detect-agents.ts`):
 * - `.traj` -> `swe-agent`;
 * - `.md` -> `aider` when a `# aider chat started at` line is among its first lines (a chat history), else E_FORMAT;
 * - JSON Lines (`.jsonl`, or any file whose first non-blank line is a whole JSON value): the agent formats whose
 *   records mix types (Codex, Claude Code, Gemini CLI, goose...) are checked on each of the first records, the first of
 *   them holding the whole schema; the format that holds on the most of them wins (the first in the table on a tie).
 *   Else the first record decides between the one-transcript-per-line formats: `anthropic` (Anthropic blocks or a
 *   `system`), `openai` (the canonical archive: `messages` and an `id`), `messages`, `swe-agent`;
 * - whole-file JSON: by its first record (the object, or the first element of the top-level array).
 * Anything else is one E_FORMAT naming what was seen, the formats tried, and the closest one with what it lacked.
 */
export async function detectFormat(file: string, options: ReadOptions): Promise<Detection> {
  // A SQLite database, whatever its name, is the store whose schema it has (_detect-stores.ts); one unit per session.
  if (await isSqliteFile(file)) return { ...(await (await import('./_detect-stores.js')).detectStore(file)), layout: 'json' };
  if (/\.traj$/i.test(file)) return { ok: true, format: 'swe-agent', layout: 'json' };
  // Markdown is read line by line (the line is its unit, as for JSON Lines).
  if (/\.md$/i.test(file))
    return (await isAiderHistory(file, options))
      ? { ok: true, format: 'aider', layout: 'jsonl' }
      : {
          ok: false,
          code: 'E_FORMAT',
          message: 'unknown format: a Markdown file that is not an aider chat history (no "# aider chat started at" line near its start)',
          layout: 'jsonl',
        };
  const jsonl = /\.jsonl$/i.test(file);
  if (!jsonl && !/\.json$/i.test(file)) {
    const first = await firstLineValue(file, options);
    if (first !== undefined && (isObject(first) || Array.isArray(first))) return fromJsonlRecords(file, await firstJsonlRecords(file, options));
  }
  if (jsonl) {
    const scan = await firstJsonlRecords(file, options);
    if (scan.length === 0) {
      // Nothing readable in the first lines: read it as the canonical archive, which reports each bad line.
      return (await hasBadLine(file, options)) ? { ok: true, format: 'openai', layout: 'jsonl' } : { ok: true, format: undefined, layout: 'jsonl' };
    }
    return fromJsonlRecords(file, scan);
  }
  let sig: JsonSignature;
  try {
    sig = await peekJson(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code === 'E_UTF8' ? 'E_UTF8' : (err as { syscall?: unknown }).syscall ? 'E_IO' : 'E_JSON';
    return { ok: false, code, message: (err as Error).message, layout: 'json' };
  }
  return fromJsonSignature(file, sig);
}

function fromJsonlRecords(file: string, records: readonly unknown[]): Detection {
  const { claims, misses } = jsonlClaims(records);
  if (claims.length > 0) return { ok: true, format: formatAt(file, claims[0]), layout: 'jsonl' };
  return {
    ok: false,
    code: 'E_FORMAT',
    message: `unknown format: the first record is ${describeValue(records[0])}; ${describeMisses(misses)}`,
    layout: 'jsonl',
  };
}

interface Claims {
  /** Every format whose schema holds, the one detection picks first. */
  claims: FormatName[];
  /** The others, and why. */
  misses: Miss[];
}

function jsonlClaims(records: readonly unknown[]): Claims {
  const misses: Miss[] = [];
  const held: { format: FormatName; held: number }[] = [];
  for (const s of RECORD_SCHEMAS) {
    const outcome = holdsOnRecords(s, records);
    if ('reason' in outcome) misses.push(outcome);
    else held.push({ format: s.format, held: outcome.held });
  }
  // The most records held first; the table's order on a tie (a stable sort).
  const claims = held.sort((a, b) => b.held - a.held).map((h) => h.format);
  for (const s of TRANSCRIPT_LINE_SCHEMAS) {
    const verdict = check(s, records[0]);
    if (verdict.ok) claims.push(s.format);
    else misses.push(missOf(s, verdict));
  }
  return { claims: [...new Set(claims)], misses };
}

/**
 * Every format whose schema holds on a file, the one `detectFormat` picks first: for tests that check no format claims
 * another's files. `.traj` and Markdown files, named by their extension, give detectFormat's answer alone.
 */
export async function claimsOf(file: string, options: ReadOptions): Promise<FormatName[]> {
  if (/\.(traj|md)$/i.test(file)) {
    const d = await detectFormat(file, options);
    return d.ok && d.format !== undefined ? [d.format] : [];
  }
  if (/\.json$/i.test(file)) return documentClaims(file, await peekJson(file)).claims;
  const records = await firstJsonlRecords(file, options);
  return records.length === 0 ? [] : jsonlClaims(records).claims.map((f) => formatAt(file, f));
}

/** How many of the records a mixed-record schema holds on, or why it does not claim them. */
function holdsOnRecords(s: Schema<JsonRecord>, records: readonly unknown[]): { held: number } | Miss {
  let held = 0;
  for (const [i, value] of records.entries()) {
    const verdict: Verdict = isObject(value) ? check(s, value) : { ok: false, passed: 0, failed: s.rules[0][0] };
    if (verdict.ok) held++;
    else if (i === 0 || verdict.passed > 0) {
      const where = i === 0 ? 'the first record' : `record ${i + 1}`;
      const reason = verdict.passed > 0 ? `${where} is ${s.rules[0][0]} but has no ${verdict.failed}` : `${where} is not ${verdict.failed}`;
      return { format: s.format, passed: verdict.passed + (i > 0 ? 1 : 0), of: s.rules.length + 1, reason };
    }
  }
  return { held };
}

function hasContent(message: JsonRecord | undefined): boolean {
  return message !== undefined && 'content' in message && !('parts' in message);
}

function isAnthropicConversation(value: Record<string, unknown>): boolean {
  if (typeof value.system === 'string' || Array.isArray(value.system)) return true;
  for (const m of value.messages as unknown[]) {
    if (!isObject(m) || !Array.isArray(m.content)) continue;
    for (const block of m.content) {
      if (!isObject(block)) continue;
      if (typeof block.type === 'string' && ANTHROPIC_BLOCKS.has(block.type)) return true;
      if (block.type === 'image' && isObject(block.source)) return true;
    }
  }
  return false;
}

function fromJsonSignature(file: string, sig: JsonSignature): Detection {
  if (sig.root === 'empty') return { ok: true, format: undefined, layout: 'json' };
  if (sig.root === 'array' && sig.first === 'none') return { ok: true, format: undefined, layout: 'json' };
  const { claims, misses } = documentClaims(file, sig);
  if (claims.length > 0) return { ok: true, format: claims[0], layout: 'json' };
  const what = sig.first === 'object' ? `an object with keys [${sig.keys.slice(0, 12).join(', ')}]` : `a ${sig.first}`;
  return {
    ok: false,
    code: 'E_FORMAT',
    message: `unknown format: a JSON ${sig.root} whose first record is ${what}; ${describeMisses(misses)}`,
    layout: 'json',
  };
}

function documentClaims(file: string, sig: JsonSignature): Claims {
  const claims: FormatName[] = [];
  const misses: Miss[] = [];
  for (const s of DOCUMENT_SCHEMAS) {
    const verdict = check(s, { file, sig });
    if (verdict.ok) claims.push(s.format);
    else misses.push(missOf(s, verdict));
  }
  return { claims: [...new Set(claims)], misses };
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array that is not a list of messages';
  if (!isObject(value)) return `a JSON ${value === null ? 'null' : typeof value}`;
  const keys = Object.keys(value);
  const type = typeof value.type === 'string' ? ` and type "${value.type}"` : '';
  return `an object with keys [${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', ...' : ''}]${type}`;
}

/** The records among a JSONL file's first lines (bad and blank lines left out). */
async function firstJsonlRecords(file: string, options: ReadOptions): Promise<unknown[]> {
  const values: unknown[] = [];
  let seen = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind === 'value') values.push(entry.value);
    if (++seen >= FIRST_LINES) break;
  }
  return values;
}

async function hasBadLine(file: string, options: ReadOptions): Promise<boolean> {
  let seen = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind === 'error') return true;
    if (++seen >= FIRST_LINES) break;
  }
  return false;
}

/** The first non-blank line parsed as JSON, or undefined when it is not a whole JSON value. */
async function firstLineValue(file: string, options: ReadOptions): Promise<unknown> {
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind === 'blank') continue;
    return entry.kind === 'value' ? entry.value : undefined;
  }
  return undefined;
}

/** Number of lines in a file (a final line without `\n` counts), streaming: the units an E_FORMAT error covers. */
export async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const _ of readLines(file, { maxLineBytes: 0 })) n++;
  return n;
}
