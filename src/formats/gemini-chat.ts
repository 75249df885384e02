import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { collapse, contentParts, functionResponseOf, geminiUsage, partList, thoughtText, type FunctionResponse } from './_gemini-parts.js';
import { baseName, finishTranscript, isObject } from './_items.js';
import { type Accepted, acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project hash>/chats/session-*.json` or `.jsonl`): one transcript per
 * file, id the `sessionId`. Built from gemini-cli's writer (packages/core/src/services/chatRecordingService.ts and
 * chatRecordingTypes.ts): no recording was found under a licence that allows copying.
 * - Two layouts. Older CLIs write the whole `ConversationRecord` `{sessionId, projectHash, startTime, lastUpdated,
 *   messages, summary?, kind?}` as one JSON document (one unit). Newer ones append JSON lines: the metadata first, then
 *   each message record, written again whole each time it changes (tool calls, tokens: the last copy wins, in the place
 *   of the first), `{"$set": {...}}` metadata updates and `{"$rewindTo": id}` (the message and all later ones are gone).
 * - `user` records -> user messages; records whose parts are all `functionResponse` (newer CLIs record the tool
 *   responses sent to the model that way) repeat the results of the calls before them: they fill a call's result only
 *   when its record has none, and are counted in metadata.toolResponseRecords.
 * - `gemini` records -> assistant messages: text -> content, `thoughts` (`subject`, `description`) and thought parts ->
 *   `reasoning_content`, marked `reasoning_not_resent` (the CLI drops thought parts from the history it sends back, and
 *   Google bills the recorded `thoughts`, not the summaries), `tokens` -> `usage`, `model`, `timestamp`; `toolCalls`
 *   -> tool calls (`JSON.stringify(args)`) each followed by its `tool` message from `result`
 *   (`functionResponse.response.output`, or `.error`), `is_error` for status `error` and `cancelled`. A call with no result (still running when the file was written) is left to the
 *   pairing repair, which reports it (`missingResultFilled`).
 * - A `gemini` record that follows one without tool calls, with no user record between (a tool-response record that
 *   answered none of the logged calls does not count): the same `tokens.input` marks the first `retried` (the CLI sent
 *   its prompt again), another marks it `unlogged_round_trip` (the model called a tool the file does not log).
 * - `info`, `error` and `warning` records are the CLI's notices, never sent to the model: skipped as `record:<type>`
 *   (JSON lines) or counted in metadata.notices (one document).
 * - A `$set.messages` that brings messages not seen before is a history rewrite by the CLI's compression: the messages
 *   before it are kept, its new messages follow, the first one (the summary) marked `is_compact_summary` and listed in
 *   metadata.compactions. One that only repeats known messages (output masking) changes nothing and is counted in
 *   metadata.historyUpdates.
 */
export async function* readGeminiChat(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new RecordingBuilder();
  const { first, units } = yield* acceptRecords(readRecords(file, options), ({ value, at, where }) =>
    where === '' && at.line === 1 && isObject(value) && Array.isArray(value.messages) ? builder.document(value) : builder.line(value),
  );
  if (!first) return;
  const { messages, summaryAt } = builder.finish();
  const metadata = { source: { format: 'gemini', file }, ...builder.metadata };
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(file);
  const indexedMetadata = (at: (index: number) => number) =>
    summaryAt.length === 0
      ? {}
      : {
          compactions: summaryAt.map((c) => ({
            summaryIndex: at(c.index),
            keptMessages: c.kept,
            ...(c.keptFrom === undefined ? {} : { keptFromIndex: at(c.keptFrom) }),
          })),
        };
  yield finishTranscript({ id, messages, metadata, indexedMetadata }, first, units);
}

const NOTICE_TYPES = new Set(['info', 'error', 'warning']);
const META_KEYS = ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'kind', 'directories', 'summary'] as const;

class RecordingBuilder {
  readonly metadata: Record<string, unknown> = {};
  /** Message records by id, in the order of their first appearance (a later copy replaces the record in place). */
  private readonly records = new Map<string, Record<string, unknown>>();
  /** History rewrites: the id of the first new record (the summary) and how many known records the rewrite kept. */
  private readonly rewrites: { id: string; kept: number; firstKept?: string }[] = [];
  private readonly notices: Record<string, number> = {};
  private rewound = 0;
  private historyUpdates = 0;

  /** The whole-document layout: the record and all its messages are one unit. */
  document(doc: Record<string, unknown>): Accepted {
    this.meta(doc);
    for (const [i, m] of (doc.messages as unknown[]).entries()) {
      const outcome = this.message(m);
      if (outcome.kind === 'error') return { kind: 'error', message: `messages[${i}].${outcome.message}` };
      if (outcome.kind === 'skipped') this.notices[outcome.reason.slice('record:'.length)] = (this.notices[outcome.reason.slice('record:'.length)] ?? 0) + 1;
    }
    return { kind: 'kept' };
  }

  /** One line of the JSON Lines layout. */
  line(value: unknown): Accepted {
    if (!isObject(value)) return { kind: 'error', message: 'a Gemini CLI recording line must be an object' };
    if (typeof value.$rewindTo === 'string') return this.rewind(value.$rewindTo);
    if (isObject(value.$set)) return this.set(value.$set);
    if (typeof value.id === 'string') return this.message(value);
    if (typeof value.sessionId === 'string') {
      this.meta(value);
      if (Array.isArray(value.messages)) for (const m of value.messages) this.message(m);
      return { kind: 'kept' };
    }
    return { kind: 'error', message: 'expected session metadata, a message record (id), $set or $rewindTo' };
  }

  private meta(record: Record<string, unknown>): void {
    for (const key of META_KEYS) if (record[key] !== undefined && record[key] !== null) this.metadata[key] = record[key];
  }

  private message(value: unknown): Accepted {
    if (!isObject(value) || typeof value.id !== 'string' || typeof value.type !== 'string')
      return { kind: 'error', message: 'a message record needs a string id and type' };
    if (NOTICE_TYPES.has(value.type)) return { kind: 'skipped', reason: `record:${value.type}` };
    if (value.type !== 'user' && value.type !== 'gemini') return { kind: 'error', message: `type: unknown message type "${value.type}"` };
    this.records.set(value.id, value);
    return { kind: 'kept' };
  }

  private rewind(id: string): Accepted {
    let found = false;
    for (const key of [...this.records.keys()]) {
      if (key === id) found = true;
      if (found) {
        this.records.delete(key);
        this.rewound++;
      }
    }
    // As the CLI's loader does: a rewind to an unknown message empties the history.
    if (!found) {
      this.rewound += this.records.size;
      this.records.clear();
    }
    return { kind: 'kept' };
  }

  private set(update: Record<string, unknown>): Accepted {
    this.meta(update);
    if (!Array.isArray(update.messages)) return { kind: 'kept' };
    let kept = 0;
    let firstNew: string | undefined;
    let firstKept: string | undefined;
    for (const m of update.messages) {
      if (!isObject(m) || typeof m.id !== 'string') continue;
      if (this.records.has(m.id)) {
        kept++;
        firstKept ??= m.id;
      } else if (m.type === 'user' || m.type === 'gemini') {
        firstNew ??= m.id;
        this.records.set(m.id, m);
      }
    }
    if (firstNew === undefined) this.historyUpdates++;
    else this.rewrites.push({ id: firstNew, kept, ...(firstKept === undefined ? {} : { firstKept }) });
    return { kind: 'kept' };
  }

  finish(): { messages: Message[]; summaryAt: { index: number; kept: number; keptFrom?: number }[] } {
    const records = [...this.records.values()];
    const answered = new Set<string>();
    for (const r of records)
      for (const tc of toolCallsOf(r)) if (tc.result !== undefined && tc.result !== null && typeof tc.id === 'string') answered.add(tc.id);
    // Tool responses recorded as user records, for calls whose own record has no result.
    const responses = new Map<string, FunctionResponse>();
    let responseRecords = 0;
    const messages: Message[] = [];
    const startOf = new Map<string, number>();
    const models: string[] = [];
    // The latest reply when nothing the log holds came after it: a reply that follows it was a second call.
    let previous: { record: Record<string, unknown>; message: AssistantMessage } | undefined;
    for (const r of records) {
      const parts = partList(r.content);
      if (r.type === 'user') {
        const fr = parts.map(functionResponseOf);
        if (fr.some((x) => x !== undefined)) {
          for (const x of fr) if (x?.id !== undefined && !answered.has(x.id)) responses.set(x.id, x);
          if (fr.every((x) => x !== undefined)) {
            responseRecords++;
            continue;
          }
        }
        previous = undefined;
        startOf.set(r.id as string, messages.length);
        const content = contentParts(parts);
        const message: Message = { role: 'user', content: collapse(content) };
        if (typeof r.timestamp === 'string') message.timestamp = r.timestamp;
        messages.push(message);
        continue;
      }
      startOf.set(r.id as string, messages.length);
      const reply = this.reply(r, parts, responses, models);
      if (previous) markSecondCall(previous, r);
      const [message] = reply as [AssistantMessage, ...Message[]];
      previous = toolCallsOf(r).length === 0 ? { record: r, message } : undefined;
      messages.push(...reply);
    }
    if (models.length > 0) this.metadata.models = models;
    if (responseRecords > 0) this.metadata.toolResponseRecords = responseRecords;
    if (Object.keys(this.notices).length > 0) this.metadata.notices = this.notices;
    if (this.rewound > 0) this.metadata.rewoundMessages = this.rewound;
    if (this.historyUpdates > 0) this.metadata.historyUpdates = this.historyUpdates;
    const summaryAt: { index: number; kept: number; keptFrom?: number }[] = [];
    for (const w of this.rewrites) {
      const index = startOf.get(w.id);
      if (index === undefined) continue; // rewound since
      if (messages[index].role === 'user') messages[index].is_compact_summary = true;
      // The first message of the latest history the compression kept beside its summary (a record may become several
      // messages, or none: a tool response joins its call), so the span the summary replaced ends there.
      const keptFrom = w.firstKept === undefined ? undefined : startOf.get(w.firstKept);
      summaryAt.push({ index, kept: w.kept, ...(keptFrom === undefined || keptFrom > index ? {} : { keptFrom }) });
    }
    return { messages, summaryAt };
  }

  /** A `gemini` record: the assistant message, then one tool message per recorded call result. */
  private reply(r: Record<string, unknown>, parts: Record<string, unknown>[], responses: Map<string, FunctionResponse>, models: string[]): Message[] {
    // Replies that only call tools are recorded with content "": no text.
    const content = contentParts(parts).filter((p) => !(p.type === 'text' && p.text === ''));
    const message: AssistantMessage = { role: 'assistant', content: content.length === 0 ? null : (collapse(content) as AssistantMessage['content']) };
    const reasoning = [thoughtsText(r.thoughts), thoughtText(parts)].filter((t): t is string => t !== undefined);
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
    // The CLI keeps thought parts out of the history it sends back; Google bills the whole thinking as `thoughts`.
    message.reasoning_not_resent = true;
    const results: ToolMessage[] = [];
    const calls: ToolCall[] = [];
    for (const [k, tc] of toolCallsOf(r).entries()) {
      const id = typeof tc.id === 'string' && tc.id !== '' ? tc.id : `${String(r.id)}#${k}`;
      const name = typeof tc.name === 'string' ? tc.name : 'unknown';
      calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(tc.args ?? {}) } });
      const result = toolResult(id, name, tc, responses.get(id));
      if (result) results.push(result);
    }
    if (calls.length > 0) message.tool_calls = calls;
    if (typeof r.model === 'string') {
      message.model = r.model;
      if (!models.includes(r.model)) models.push(r.model);
    }
    if (isObject(r.tokens)) message.usage = geminiUsage(r.tokens);
    if (typeof r.timestamp === 'string') message.timestamp = r.timestamp;
    return [message, ...results];
  }
}

/**
 * A reply recorded right after `previous`, which called no tool the log holds: the same `tokens.input` means the CLI
 * sent the same prompt again (it retries a malformed reply), so `previous` is billed but never in a later prompt;
 * otherwise the model made a round trip the file does not log (a tool call and its result) between the two.
 */
function markSecondCall(previous: { record: Record<string, unknown>; message: AssistantMessage }, r: Record<string, unknown>): void {
  const input = (t: unknown) => (isObject(t) && typeof t.input === 'number' && t.input > 0 ? t.input : undefined);
  const before = input(previous.record.tokens);
  if (before !== undefined && before === input(r.tokens)) previous.message.retried = true;
  else previous.message.unlogged_round_trip = true;
}

function toolCallsOf(r: Record<string, unknown>): Record<string, unknown>[] {
  return r.type === 'gemini' && Array.isArray(r.toolCalls) ? r.toolCalls.filter(isObject) : [];
}

/** Thought summaries (`{subject, description}`) as text: the subject, a line break, the description. */
function thoughtsText(thoughts: unknown): string | undefined {
  if (!Array.isArray(thoughts)) return undefined;
  const texts = thoughts
    .filter(isObject)
    .map((t) => [t.subject, t.description].filter((s): s is string => typeof s === 'string' && s !== '').join('\n'))
    .filter((t) => t !== '');
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function toolResult(id: string, name: string, tc: Record<string, unknown>, recorded: FunctionResponse | undefined): ToolMessage | undefined {
  const failed = tc.status === 'error' || tc.status === 'cancelled';
  if (tc.result === undefined || tc.result === null) {
    if (!recorded) return undefined;
    return { role: 'tool', tool_call_id: id, name, content: recorded.text, ...(failed || recorded.isError ? { is_error: true } : {}) };
  }
  const parts = partList(tc.result);
  const pieces = parts.map(functionResponseOf).filter((x): x is FunctionResponse => x !== undefined);
  const texts = [...pieces.map((p) => ({ type: 'text' as const, text: p.text })), ...contentParts(parts)];
  const message: ToolMessage = { role: 'tool', tool_call_id: id, name, content: texts.length === 0 ? '' : collapse(texts) };
  if (failed || pieces.some((p) => p.isError)) message.is_error = true;
  return message;
}
