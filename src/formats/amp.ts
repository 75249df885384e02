import type { Message, ToolMessage } from '../model/message.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { baseName, finishTranscript, isObject } from './_items.js';
import type { JsonSignature } from './_json-peek.js';
import { acceptRecords, keptUnless, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Amp threads (`~/.local/share/amp/threads/T-<uuid>.json`). Amp's client is not open source: the shape is the one its
 * peers read (ccusage `rust/crates/ccusage/src/adapter/amp/`, tokscale `packages/core/src/sessions/amp.rs`,
 * cross_agent_session_resumer `src/providers/amp.rs`), see test/fixtures/amp/README.md. One transcript per file (one
 * unit), id the thread's `id`.
 * - `messages[]` hold Anthropic content blocks: an assistant's `text`, `thinking` and `tool_use` blocks make one
 *   assistant message (one model call); a user's `tool_result` blocks become `tool` messages. Amp writes a result as
 *   `{toolUseID, run: {status, result | progress}}` (status `done`, `error`, `cancelled`, `rejected-by-user`); the API's
 *   own `{tool_use_id, content}` is read too.
 * - Usage per model call: `usage` on each assistant message (`inputTokens` uncached, `cacheCreationInputTokens`,
 *   `cacheReadInputTokens`, `outputTokens`, `model`, `timestamp`), kept in Anthropic's names. Older threads priced the
 *   calls in `usageLedger.events[]` (`tokens.input`, `tokens.output`, `toMessageId`), with the cache split still on the
 *   message's `usage`: an event prices the message it names; an event that names no message of the thread (a call
 *   outside the conversation) is kept in metadata.embeddedCalls, so the bill still holds it.
 * - A reply with no usage (`state.type` `cancelled`: stopped while streaming) stays in the history later calls sent,
 *   marked `unpriced_request`: no call is billed for it.
 * - `info` messages are Amp's notices to the user, never sent to the model: counted in metadata.notices.
 * - Amp has no compaction of its own: a long thread is handed off to a new thread (`relationships` in metadata).
 */
export async function* readAmp(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  let thread: Record<string, unknown> | undefined;
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'json' }), ({ value }) => {
    const problem = ampThreadProblem(value);
    if (problem === undefined) thread = value as Record<string, unknown>;
    return keptUnless(problem);
  });
  if (!first || !thread) return;
  const built = buildThread(thread);
  const metadata: Record<string, unknown> = { source: { format: 'amp', file }, ...threadMetadata(thread), ...built.metadata };
  yield finishTranscript({ id: typeof thread.id === 'string' ? thread.id : baseName(file), messages: built.messages, metadata }, first, units);
}

const ROLES = new Set(['user', 'assistant', 'info']);

/** Why a parsed document is not an Amp thread, or undefined when it is one: an `id`, and `messages` of Amp's roles with content lists. */
export function ampThreadProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'expected an Amp thread (an object)';
  if (typeof value.id !== 'string') return 'expected an Amp thread: `id` is not a string';
  if (!Array.isArray(value.messages)) return 'expected an Amp thread: `messages` is not a list';
  for (const [i, m] of value.messages.entries()) {
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) return `messages[${i}]: expected role "user", "assistant" or "info"`;
    if (!Array.isArray(m.content)) return `messages[${i}]: expected a content list`;
  }
  return undefined;
}

/**
 * Whether the start of a whole-file JSON document is an Amp thread: a thread `id` (`T-...`) with `messages`, and
 * Amp's own fields (`v`, `created`, messages numbered by `messageId`). Amp writes `v`, `id` and `created` first.
 */
export function isAmpThreadSignature(sig: JsonSignature): boolean {
  if (sig.root !== 'object') return false;
  const keys = new Set(sig.keys);
  if (!keys.has('id') || !(keys.has('v') || keys.has('created'))) return false;
  return keys.has('messages') && (sig.allKeys.has('messageId') || keys.has('usageLedger') || keys.has('env'));
}

const THREAD_KEYS = ['title', 'created', 'agentMode', 'env', 'relationships', 'originThreadID', 'mainThreadID'] as const;

function threadMetadata(thread: Record<string, unknown>): Record<string, unknown> {
  const metadata: Record<string, unknown> = { threadId: thread.id };
  for (const key of THREAD_KEYS) if (thread[key] !== undefined && thread[key] !== null) metadata[key] = thread[key];
  const cwd = workspaceOf(thread.env);
  if (cwd !== undefined) metadata.cwd = cwd;
  return metadata;
}

/** The folder the thread worked in: `env.initial.cwd`, else the first workspace tree's `file://` URI. */
export function workspaceOf(env: unknown): string | undefined {
  const initial = isObject(env) && isObject(env.initial) ? env.initial : undefined;
  if (!initial) return undefined;
  if (typeof initial.cwd === 'string') return initial.cwd;
  const tree = Array.isArray(initial.trees) ? initial.trees.find(isObject) : undefined;
  const uri = tree?.uri;
  if (typeof uri !== 'string') return undefined;
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(uri.slice('file://'.length).replace(/^localhost\//, '/'));
  } catch {
    return uri;
  }
}

const ERROR_STATUS = new Set(['error', 'cancelled', 'rejected-by-user']);

interface LedgerCall {
  model?: string;
  usage: Record<string, unknown>;
  timestamp?: string;
}

function buildThread(thread: Record<string, unknown>): { messages: Message[]; metadata: Record<string, unknown> } {
  const raw = (thread.messages as Record<string, unknown>[]) ?? [];
  const ledger = ledgerEvents(thread.usageLedger);
  const byMessage = new Map<number, Record<string, unknown>>();
  const unplaced: LedgerCall[] = [];
  const messageIds = new Set(raw.filter((m) => m.role === 'assistant' && typeof m.messageId === 'number').map((m) => m.messageId as number));
  for (const event of ledger ?? []) {
    const to = event.toMessageId;
    if (typeof to === 'number' && messageIds.has(to) && !byMessage.has(to)) byMessage.set(to, event);
    else {
      const usage = ledgerUsage(event, undefined);
      if (usage) unplaced.push({ ...(typeof event.model === 'string' ? { model: event.model } : {}), usage, ...timestampField(event.timestamp) });
    }
  }
  const messages: Message[] = [];
  const models: string[] = [];
  let notices = 0;
  for (const m of raw) {
    const extra = { ...timestampField(isObject(m.meta) ? m.meta.sentAt : undefined) };
    if (m.role === 'info') {
      notices++;
      continue;
    }
    if (m.role === 'user') {
      messages.push(...userMessages(m.content as unknown[], extra));
      continue;
    }
    const blocks = emptyAssistantBlocks();
    for (const block of m.content as unknown[]) addAssistantBlock(blocks, block);
    const usageRecord = isObject(m.usage) ? m.usage : undefined;
    const event = typeof m.messageId === 'number' ? byMessage.get(m.messageId) : undefined;
    const usage = ledger ? (event ? ledgerUsage(event, usageRecord) : undefined) : messageUsage(usageRecord);
    const model = [event?.model, usageRecord?.model, m.model].find((x): x is string => typeof x === 'string' && x !== '');
    const fields: Record<string, unknown> = { ...extra, ...timestampField(usageRecord?.timestamp ?? event?.timestamp) };
    if (model !== undefined) {
      fields.model = model;
      if (!models.includes(model)) models.push(model);
    }
    // A reply with no usage (cancelled while streaming) was sent but not priced: later calls sent it, none bills it.
    if (usage) fields.usage = usage;
    else fields.unpriced_request = true;
    if (typeof m.messageId === 'number') fields.amp_message_id = m.messageId;
    if (isObject(m.state) && typeof m.state.type === 'string') fields.amp_state = m.state.type;
    messages.push(assistantFromBlocks(blocks, fields));
  }
  const metadata: Record<string, unknown> = {};
  if (models.length > 0) metadata.models = models;
  if (notices > 0) metadata.notices = notices;
  if (unplaced.length > 0) metadata.embeddedCalls = [{ agentId: 'usage-ledger', calls: unplaced }];
  return { messages, metadata };
}

/** A user message's blocks: Amp's and the API's tool results as `tool` messages, the rest one user message after them. */
function userMessages(content: unknown[], extra: Record<string, unknown>): Message[] {
  const tools: ToolMessage[] = [];
  const rest: unknown[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'tool_result' && typeof block.toolUseID === 'string') tools.push(ampToolResult(block, extra));
    else rest.push(block);
  }
  if (rest.length === 0) return tools;
  const turn = userTurnMessages(rest, extra);
  return [...tools, ...turn.tools, ...(turn.user ? [turn.user] : [])];
}

function ampToolResult(block: Record<string, unknown>, extra: Record<string, unknown>): ToolMessage {
  const run = isObject(block.run) ? block.run : {};
  const status = typeof run.status === 'string' ? run.status : undefined;
  const body = run.result !== undefined ? run.result : run.progress;
  const content = body === undefined || body === null ? (status ? `[${status}]` : '') : typeof body === 'string' ? body : JSON.stringify(body);
  const message: ToolMessage = { role: 'tool', tool_call_id: block.toolUseID as string, content, ...extra };
  if (status !== undefined) {
    message.amp_status = status;
    if (ERROR_STATUS.has(status)) message.is_error = true;
  }
  return message;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** A message's own usage in Anthropic's names; undefined when it records no tokens (an aborted call). */
function messageUsage(u: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!u) return undefined;
  const usage = {
    input_tokens: num(u.inputTokens),
    cache_creation_input_tokens: num(u.cacheCreationInputTokens),
    cache_read_input_tokens: num(u.cacheReadInputTokens),
    output_tokens: num(u.outputTokens),
  };
  return Object.values(usage).some((n) => n > 0) ? usage : undefined;
}

/** A ledger event's tokens, with the cache split of the message it prices (ccusage reads them so). */
function ledgerUsage(event: Record<string, unknown>, message: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const tokens = isObject(event.tokens) ? event.tokens : {};
  const usage = {
    input_tokens: num(tokens.input),
    cache_creation_input_tokens: num(message?.cacheCreationInputTokens ?? tokens.cacheCreationInputTokens),
    cache_read_input_tokens: num(message?.cacheReadInputTokens ?? tokens.cacheReadInputTokens),
    output_tokens: num(tokens.output),
  };
  return Object.values(usage).some((n) => n > 0) ? usage : undefined;
}

function ledgerEvents(ledger: unknown): Record<string, unknown>[] | undefined {
  const events = isObject(ledger) && Array.isArray(ledger.events) ? ledger.events.filter(isObject) : undefined;
  return events && events.length > 0 ? events : undefined;
}

/** A time as the message's ISO `timestamp`: an ISO string as is, epoch milliseconds converted; nothing for neither. */
function timestampField(t: unknown): { timestamp?: string } {
  if (typeof t === 'string' && Number.isFinite(Date.parse(t))) return { timestamp: t };
  if (typeof t === 'number' && Number.isFinite(t)) return { timestamp: new Date(t).toISOString() };
  return {};
}
