import { readLines } from '../io/line-reader.js';
import { agentFormatOfJson, agentFormatOfRecord } from './_detect-agents.js';
import { isObject } from './_items.js';
import { peekJson, type JsonSignature } from './_json-peek.js';
import { isAiderHistory } from './aider.js';
import { isLegacySessionMeta } from './codex.js';
import { readJsonl } from './_jsonl.js';
import type { FormatName, ReadOptions } from './types.js';

export type Detection =
  | { ok: true; format: FormatName; layout: 'jsonl' | 'json' }
  /** The file holds no record at all (empty, or blank lines only). */
  | { ok: true; format: undefined; layout: 'jsonl' | 'json' }
  | { ok: false; code: 'E_FORMAT' | 'E_JSON' | 'E_UTF8' | 'E_IO'; message: string; layout: 'jsonl' | 'json' };

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
/** How many lines of a JSONL file detection looks at for its first readable record. */
const FIRST_LINES = 20;

/**
 * Recognises a file's format from its name and its first record, never reading the whole file:
 * - `.traj` -> `swe-agent`;
 * - `.md` -> `aider` when a `# aider chat started at` line is among its first lines (a chat history), else E_FORMAT;
 * - JSON Lines (`.jsonl`, or any file whose first non-blank line is a whole JSON value), by the first record:
 *   `type` session_meta/response_item/... with a `payload`, or a 2025 rollout's `{id, timestamp, instructions?, git?}`
 *   -> `codex`; a Claude Code record `type` with `sessionId`,
 *   `uuid`, `leafUuid` or `messageId` -> `claude-code`; `messages` with Anthropic blocks or a top-level `system` ->
 *   `anthropic`; `messages` with an `id` -> `openai` (the canonical archive); `messages` or `traj` without `id`, or a
 *   bare array of messages -> `messages`;
 * - whole-file JSON, by the first record (the object, or the first element of the top-level array): `history` ->
 *   `swe-agent`; events with `action` or `observation` -> `openhands`; `messages`/`traj` -> `anthropic` or `messages`
 *   as above; messages (objects with a `role`) -> `messages`.
 * Anything else is E_FORMAT naming what was seen.
 */
export async function detectFormat(file: string, options: ReadOptions): Promise<Detection> {
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
    if (first !== undefined && (isObject(first) || Array.isArray(first))) return fromJsonlRecord(first);
  }
  if (jsonl) {
    const scan = await firstJsonlRecord(file, options);
    if (scan.kind === 'none') return { ok: true, format: undefined, layout: 'jsonl' };
    // Nothing readable in the first lines: read it as the canonical archive, which reports each bad line.
    if (scan.kind === 'unreadable') return { ok: true, format: 'openai', layout: 'jsonl' };
    return fromJsonlRecord(scan.value);
  }
  let sig: JsonSignature;
  try {
    sig = await peekJson(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code === 'E_UTF8' ? 'E_UTF8' : (err as { syscall?: unknown }).syscall ? 'E_IO' : 'E_JSON';
    return { ok: false, code, message: (err as Error).message, layout: 'json' };
  }
  const agent = agentFormatOfJson(file, sig);
  return agent ? { ok: true, format: agent, layout: 'json' } : fromJsonSignature(sig);
}

function fromJsonlRecord(value: unknown): Detection {
  const format = classifyRecord(value);
  if (format) return { ok: true, format, layout: 'jsonl' };
  return { ok: false, code: 'E_FORMAT', message: `unknown format: the first record is ${describeValue(value)}`, layout: 'jsonl' };
}

/** The format a single parsed record belongs to, or undefined. */
function classifyRecord(value: unknown): FormatName | undefined {
  if (Array.isArray(value)) return value.every((m) => isObject(m) && typeof m.role === 'string') ? 'messages' : undefined;
  if (!isObject(value)) return undefined;
  const agent = agentFormatOfRecord(value);
  if (agent) return agent;
  if (typeof value.type === 'string') {
    if (CODEX_TYPES.has(value.type) && 'payload' in value) return 'codex';
    if (CLAUDE_CODE_TYPES.has(value.type) && ['sessionId', 'uuid', 'leafUuid', 'messageId'].some((k) => k in value)) return 'claude-code';
  }
  if (Array.isArray(value.messages)) {
    if (isAnthropicConversation(value)) return 'anthropic';
    return typeof value.id === 'string' ? 'openai' : 'messages';
  }
  if (Array.isArray(value.traj)) return 'messages';
  if (isLegacySessionMeta(value)) return 'codex';
  if (Array.isArray(value.history)) return 'swe-agent';
  return undefined;
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

function fromJsonSignature(sig: JsonSignature): Detection {
  const json = (format: FormatName): Detection => ({ ok: true, format, layout: 'json' });
  if (sig.root === 'empty') return { ok: true, format: undefined, layout: 'json' };
  if (sig.root === 'array' && sig.first === 'none') return { ok: true, format: undefined, layout: 'json' };
  if (sig.first === 'object') {
    const keys = new Set(sig.keys);
    if (sig.root === 'object' && keys.has('history')) return json('swe-agent');
    if (sig.root === 'array' && (keys.has('action') || keys.has('observation'))) return json('openhands');
    if (keys.has('messages')) {
      const anthropic = keys.has('system') || [...sig.types].some((t) => ANTHROPIC_BLOCKS.has(t)) || (sig.types.has('image') && sig.allKeys.has('source'));
      return json(anthropic ? 'anthropic' : 'messages');
    }
    if (keys.has('traj')) return json('messages');
    if (sig.root === 'array' && keys.has('role')) return json('messages');
  }
  if (sig.root === 'array' && sig.first === 'array' && sig.roles.size > 0) return json('messages');
  const what = sig.first === 'object' ? `an object with keys [${sig.keys.slice(0, 12).join(', ')}]` : `a ${sig.first}`;
  return { ok: false, code: 'E_FORMAT', message: `unknown format: a JSON ${sig.root} whose first record is ${what}`, layout: 'json' };
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array that is not a list of messages';
  if (!isObject(value)) return `a JSON ${value === null ? 'null' : typeof value}`;
  const keys = Object.keys(value);
  const type = typeof value.type === 'string' ? ` and type "${value.type}"` : '';
  return `an object with keys [${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', ...' : ''}]${type}`;
}

type FirstRecord = { kind: 'value'; value: unknown } | { kind: 'none' } | { kind: 'unreadable' };

async function firstJsonlRecord(file: string, options: ReadOptions): Promise<FirstRecord> {
  let seen = 0;
  let bad = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind === 'value') return { kind: 'value', value: entry.value };
    if (entry.kind === 'error') bad++;
    if (++seen >= FIRST_LINES) break;
  }
  return bad > 0 ? { kind: 'unreadable' } : { kind: 'none' };
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
