import type { ContentPart } from '../model/content.js';
import type { Message, ToolCall, ToolMessage, UserMessage } from '../model/message.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { type DraftTranscript, baseName, finishTranscript, isObject } from './_items.js';
import { clineTaskWorkspace, readJson } from './_cline-workspace.js';
import { type ClineHistoryShape, type DeletedRange, inferRanges, windowOfModel } from './_cline-truncation.js';
import { type ClineContextChange, type ClineRequest, contextChanges } from './_cline-context.js';
import { type ContextUpdate, contextUpdates } from './_cline-rewrites.js';
import { type UiRequest, uiRequests, usageOfCline } from './_cline-ui.js';
import { readClineUiLog } from './cline-ui-log.js';
import { rooCompactions, rooContext } from './_roo-context.js';
import { isRooUiLog } from './_roo-ui.js';
import { rooHistoryItem, rooSessionUsage } from './_roo-history-item.js';
import { dirname, join } from 'node:path';
import { type Accepted, type RecordEntry, acceptRecords, keptUnless, readRecords } from './_records.js';
import { ROO_HISTORY_VERSION, isRooHistoryEnvelope, legacyOfRooMessage } from './_roo-messages.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Cline and Roo Code task histories (`tasks/<task id>/api_conversation_history.json`): a JSON array of Anthropic
 * messages with Cline's fields (cline apps/vscode/src/shared/messages/content.ts `ClineStorageMessage`: `ts`,
 * `modelInfo {modelId, providerId, mode}`, `metrics {tokens {prompt, completion, cached}, cost}`). One transcript per
 * file, id the task directory's name; each element is a unit.
 * - Blocks map as for the Anthropic format: `tool_use` -> tool calls, `tool_result` -> `tool` messages, `thinking` ->
 *   `reasoning_content`; `modelInfo.modelId` -> `model`, `metrics.tokens` -> `usage` (`prompt` includes the cached
 *   tokens, as OpenAI's `input_tokens` does), `ts` stays on the message.
 * - Cline writes a result as a plain text block `[<tool description>] Result:\n...` when it cannot map the call to its
 *   `tool_use` id (cline ToolResultUtils.pushToolResult), while the `tool_use` blocks keep their ids. Such a block in
 *   the user turn right after calls with no `tool_result` becomes the `tool` message of the first unanswered call
 *   whose name the description starts with, else of the first unanswered call; counted in metadata.textToolResults.
 *   Older histories, whose calls are XML in the assistant's text, have no `tool_use` blocks: their result blocks stay
 *   user text.
 * - Roo Code (src/core/task-persistence/apiMessages.ts `LegacyApiMessage`): reasoning elements `{type: "reasoning",
 *   summary, encrypted_content}` between messages, and `{type: "reasoning", text}` blocks, go to the next reply's
 *   `reasoning_content` (encrypted-only ones counted in metadata.encryptedReasoning); its condense summary
 *   (`isSummary`) is marked `is_compact_summary` and listed in metadata.compactions; `condenseId`, `condenseParent`,
 *   `truncationId`, `truncationParent` and `isTruncationMarker` stay on their messages.
 * - Roo Code's history records no usage: it is in ui_messages.json (see _roo-context.ts); without it, the task's totals
 *   from `history_item.json` (_roo-history-item.ts) are metadata.sessionUsage.
 * - Roo Code's versioned history (`{version: 2, messages}` of AI SDK messages, see _roo-messages.ts): each message is a
 *   unit, read as the Anthropic message Roo stored before.
 * - The folder the task worked in goes to metadata.workspace, from the files the extensions keep beside the history
 *   (see clineTaskWorkspace).
 * - `ui_messages.json` (the UI's copy, most assistant text stored `partial`) is not read.
 */
export async function* readCline(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  if (isUiLog(file)) {
    yield* readClineUiLog(file, options);
    return;
  }
  const builder = new HistoryBuilder();
  const history = { versioned: false };
  const { first, units } = yield* acceptRecords(historyRecords(file, options, history), ({ value, where, index }): Accepted => {
    if (where === '' && isRooHistoryEnvelope(value))
      return {
        kind: 'error',
        code: 'E_FORMAT',
        message: `Roo Code's versioned history: version ${JSON.stringify(value.version)} is not known (only ${ROO_HISTORY_VERSION})`,
      };
    if (!history.versioned) return keptUnless(builder.accept(value, index ?? 0));
    const legacy = legacyOfRooMessage(value);
    return 'error' in legacy ? { kind: 'error', message: legacy.error } : keptUnless(builder.accept(legacy.element, index ?? 0));
  });
  if (!first) return;
  const metadata: Record<string, unknown> = { source: { format: 'cline', file } };
  const entries = await readJson(join(dirname(file), 'ui_messages.json'));
  let indexedMetadata: DraftTranscript['indexedMetadata'];
  // Roo Code keeps its record of the task beside the history (Cline does not): its totals stand in for a UI log.
  const item = rooHistoryItem(await readJson(join(dirname(file), 'history_item.json')));
  if (builder.rooTags || (Array.isArray(entries) && isRooUiLog(entries)) || item) {
    const roo = rooContext(builder, Array.isArray(entries) ? entries : undefined);
    metadata.rooContext = roo.summary;
    const totals = Array.isArray(entries) || !item ? undefined : rooSessionUsage(item);
    if (totals && item) {
      metadata.sessionUsage = totals;
      metadata.rooContext = { ...roo.summary, usage: 'history_item.json', ...(item.totalCost === undefined ? {} : { totalCost: item.totalCost }) };
    }
    if (roo.unreplayable !== undefined) metadata.unreplayable = roo.unreplayable;
    indexedMetadata = rooCompactions(roo.points);
  } else indexedMetadata = clineCompactions(builder.summaries, await clineContext(file, builder, metadata, entries));
  const workspace = await clineTaskWorkspace(file, taskId(file));
  if (workspace !== undefined) metadata.workspace = workspace;
  if (builder.models.length > 0) metadata.models = builder.models;
  if (builder.textResults > 0) metadata.textToolResults = builder.textResults;
  if (builder.encryptedReasoning > 0) metadata.encryptedReasoning = builder.encryptedReasoning;
  yield finishTranscript(
    { id: taskId(file), messages: builder.messages, metadata, indexedMetadata },
    { file, line: 1, byteOffset: 0, record: first.record },
    units,
  );
}

/**
 * The records of a history: the array's elements, or the messages of Roo's versioned envelope (each a unit placed at
 * its index in `messages`, and `state.versioned` set); an envelope of another version stays one record, refused whole.
 */
async function* historyRecords(file: string, options: ReadOptions, state: { versioned: boolean }): AsyncGenerator<RecordEntry> {
  for await (const entry of readRecords(file, { ...options, layout: 'json' })) {
    const value = entry.kind === 'record' && entry.record.where === '' ? entry.record.value : undefined;
    if (entry.kind !== 'record' || !isRooHistoryEnvelope(value) || value.version !== ROO_HISTORY_VERSION) {
      yield entry;
      continue;
    }
    state.versioned = true;
    for (const [index, message] of value.messages.entries())
      yield { kind: 'record', record: { value: message, at: { ...entry.record.at, record: index }, where: `messages[${index}]: `, index } };
  }
}

const isUiLog = (file: string) => /(^|[\\/])ui_messages\.json$/i.test(file);

/**
 * What Cline sent, request by request (see _cline-context.ts), as `metadata.compactions` records, and how its points
 * were found (`metadata.clineContext`): with `ui_messages.json`, each request's usage as `api_req_started` split it
 * (its cache writes apart from its reads), Cline's `cost` beside it, and the deleted range each request used; without
 * it, the ranges Cline's rule deletes, inferred from each reply's recorded totals.
 */
async function clineContext(file: string, builder: HistoryBuilder, metadata: Record<string, unknown>, entries: unknown): Promise<ClineContextChange[]> {
  const dir = dirname(file);
  const updates = contextUpdates(await readJson(join(dir, 'context_history.json')));
  const history = { messages: builder.messages, starts: builder.starts, raw: builder.raw };
  const ui = Array.isArray(entries) ? uiRequests(entries) : [];
  if (ui.some((r) => r.replyElement !== undefined)) {
    const { requests, ranges } = recordedRanges(builder, ui, metadata);
    return contextChanges(history, requests, ranges, updates);
  }
  if (builder.replies.length < 2 && updates.length === 0) return [];
  // An update is written with the time of the request before the one it first applies to (or during a request's retry,
  // after a context-window error): the replies' own times place it.
  const requests: ClineRequest[] = builder.replies.map((r, k) => {
    const before = k > 0 ? builder.replies[k - 1].ts : undefined;
    return { replyElement: r.element, sees: (ts) => before !== undefined && ts <= before };
  });
  const ranges = inferredRanges(builder, metadata, rewriteSaving(builder, requests, updates));
  return contextChanges(history, requests, ranges, updates);
}

function recordedRanges(
  builder: HistoryBuilder,
  ui: readonly UiRequest[],
  metadata: Record<string, unknown>,
): { requests: ClineRequest[]; ranges: DeletedRange[] } {
  const ranges: DeletedRange[] = [];
  const requests: ClineRequest[] = [];
  let previous: string | undefined;
  let unmatched = 0;
  for (const r of ui) {
    const element = r.replyElement;
    const message = element !== undefined && builder.roles[element] === 'assistant' ? builder.messages[builder.starts[element]] : undefined;
    if (!message || element === undefined) {
      if (r.tokensIn + r.tokensOut + r.cacheWrites + r.cacheReads > 0) unmatched++;
      continue;
    }
    const provider = r.provider ?? builder.replies.find((x) => x.element === element)?.provider;
    message.usage = usageOfCline({ input: r.tokensIn, output: r.tokensOut, writes: r.cacheWrites, reads: r.cacheReads }, provider);
    if (r.cost !== undefined) message.cost = r.cost;
    const key = r.deletedRange?.join(',');
    if (r.deletedRange && key !== previous) ranges.push({ replyElement: element, range: r.deletedRange });
    previous = key;
    // An update written at the previous request's time applies from this one on; one written after this request
    // started and before its first output, during its retry after a context-window error, applies to it too.
    requests.push({ replyElement: element, sees: (ts) => ts < (r.nextTs ?? Infinity) && ts !== r.ts });
  }
  metadata.clineContext = { points: 'recorded', cuts: ranges.length, ...(unmatched > 0 ? { requestsWithoutReply: unmatched } : {}) };
  return { requests, ranges };
}

/** Without `ui_messages.json`: the ranges Cline's rule deleted, inferred from each reply's recorded totals. */
function inferredRanges(builder: HistoryBuilder, metadata: Record<string, unknown>, rewriteSuffices: ClineHistoryShape['rewriteSuffices']): DeletedRange[] {
  const shape: ClineHistoryShape = {
    rewriteSuffices,
    roles: builder.roles,
    replies: builder.replies.map((r) => ({ element: r.element, total: r.prompt + r.completion + r.cached, ...(r.ts === undefined ? {} : { ts: r.ts }) })),
  };
  const prompts = builder.replies.map((r) => ({ element: r.element, prompt: r.provider === 'openai' ? r.prompt : r.prompt + r.cached }));
  const inferred = inferRanges(shape, prompts, windowOfModel(builder.models[0]));
  metadata.clineContext = { points: 'inferred', window: inferred.window, cuts: inferred.ranges.length, predicted: inferred.predicted, drops: inferred.drops };
  return inferred.ranges;
}

/** Cline saves at least this share of the characters it sends with file-read rewrites alone, or it cuts as well. */
const REWRITE_SUFFICES = 0.3;

/**
 * Whether the file-read rewrites (not Cline's notices on messages 0 and 1) first in force at a request save 30% of the
 * characters of the history it sends (calculateContextOptimizationMetrics: messages 0 and 1, and those after the range).
 */
function rewriteSaving(builder: HistoryBuilder, requests: readonly ClineRequest[], updates: readonly ContextUpdate[]): ClineHistoryShape['rewriteSuffices'] {
  const reads = updates.filter((u) => u.element >= 2);
  if (reads.length === 0) return undefined;
  return (replyElement, range) => {
    const k = requests.findIndex((r) => r.replyElement === replyElement);
    if (k < 1) return false;
    const fresh = reads.filter((u) => requests[k].sees(u.ts) && !requests[k - 1].sees(u.ts));
    if (fresh.length === 0) return false;
    const rest = range ? range[1] + 1 : 2;
    let total = 0;
    for (let e = 0; e < replyElement; e++) if (e < 2 || e >= rest) total += textLength(builder.raw[e]);
    const saved = fresh.reduce((n, u) => n + Math.max(0, blockLength(builder.raw[u.element], u.block) - u.text.length), 0);
    return total > 0 && saved / total >= REWRITE_SUFFICES;
  };
}

/** The characters of an element's text blocks and tool results' texts. */
function textLength(raw: unknown): number {
  const content = isObject(raw) ? raw.content : undefined;
  if (typeof content === 'string') return content.length;
  return Array.isArray(content) ? content.reduce((n: number, _b, i) => n + blockLength(raw, i), 0) : 0;
}

function blockLength(raw: unknown, block: number): number {
  const content = isObject(raw) ? raw.content : undefined;
  const b: unknown = Array.isArray(content) ? content[block] : undefined;
  if (!isObject(b)) return 0;
  if (typeof b.text === 'string') return b.text.length;
  if (typeof b.content === 'string') return b.content.length;
  return Array.isArray(b.content) ? b.content.reduce((n: number, p) => n + (isObject(p) && typeof p.text === 'string' ? p.text.length : 0), 0) : 0;
}

/** Roo Code's condense summaries and what Cline sent as `metadata.compactions`. */
function clineCompactions(summaries: readonly number[], changes: readonly ClineContextChange[]): NonNullable<DraftTranscript['indexedMetadata']> {
  return (to) => {
    const compactions = [
      ...summaries.map((i) => ({ summaryIndex: to(i) })),
      ...changes.map((c) => ({
        index: to(c.index),
        // Right after the head's last message: the results of its calls, in the deleted range, go with it (Cline
        // sends "result missing" in their place, ContextManager ensureToolResultsFollowToolUse).
        keptHeadTo: c.keptHead === 0 ? 0 : to(c.keptHead - 1) + 1,
        keptFromIndex: to(c.keptFrom),
        truncation: true,
        ...(c.rewrites.length > 0 ? { rewrites: c.rewrites.map((r) => ('index' in r ? { ...r, index: to(r.index) } : r)) } : {}),
      })),
    ];
    return compactions.length === 0 ? {} : { compactions };
  };
}

/** `tasks/<id>/api_conversation_history.json` -> `<id>`; any other name -> the file's base name. */
function taskId(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.length > 1 && /^api_conversation_history\.json$/i.test(parts[parts.length - 1]) ? parts[parts.length - 2] : baseName(file);
}

const RESULT_PREFIX = /^\[([^\]\n]*)\] Result:/;

/** Roo Code's non-destructive condense and truncation links, kept on the messages that carry them. */
const ROO_CONDENSE_KEYS = ['condenseId', 'condenseParent', 'truncationId', 'truncationParent', 'isTruncationMarker'] as const;

class HistoryBuilder {
  readonly messages: Message[] = [];
  readonly models: string[] = [];
  textResults = 0;
  encryptedReasoning = 0;
  /** Indices of Roo Code's condense summaries (`isSummary`). */
  readonly summaries: number[] = [];
  /** Whether an element carries Roo Code's condense or truncation fields: the history is Roo's. */
  rooTags = false;
  /** Reasoning elements waiting for the reply they belong to. */
  private reasoning: string[] = [];
  /** Calls of the latest assistant message that no result has answered yet. */
  private pending: ToolCall[] = [];

  /** Each element's role (`reasoning` for Roo's reasoning elements, `` for a refused one), by element index. */
  readonly roles: string[] = [];
  /** Each element as read, for the blocks `context_history.json` rewrites. */
  readonly raw: unknown[] = [];
  /** The index in `messages` of each element's first message (the next message's, for an element that made none). */
  readonly starts: number[] = [];
  /** The replies with recorded metrics: their element, message, provider and tokens. */
  readonly replies: { element: number; message: number; provider?: string; prompt: number; completion: number; cached: number; ts?: number }[] = [];

  /** Adds element `element`; returns an error message when it is not a Cline message. */
  accept(value: unknown, element: number): string | undefined {
    this.starts[element] = this.messages.length;
    this.raw[element] = value;
    this.roles[element] = isObject(value) && typeof value.role === 'string' ? value.role : isObject(value) && value.type === 'reasoning' ? 'reasoning' : '';
    if (isObject(value) && value.type === 'reasoning' && value.role === undefined) return this.reasoningItem(value);
    if (!isObject(value) || (value.role !== 'user' && value.role !== 'assistant')) return 'expected a message with role "user" or "assistant"';
    if (typeof value.content !== 'string' && !Array.isArray(value.content)) return 'content: expected a string or an array of blocks';
    const extra: Record<string, unknown> = {};
    if (typeof value.ts === 'number') extra.ts = value.ts;
    for (const key of ROO_CONDENSE_KEYS) if (value[key] !== undefined) extra[key] = value[key];
    if (value.isSummary === true || ROO_CONDENSE_KEYS.some((key) => value[key] !== undefined)) this.rooTags = true;
    const before = this.messages.length;
    this.message(value, extra, element);
    // Roo's condense summary, and its sliding window's marker, exist only because the task compacted: what each put in
    // place of the messages it hid (see _roo-context.ts).
    if ((value.isSummary === true || value.isTruncationMarker === true) && this.messages.length > before) {
      const last = this.messages.length - 1;
      this.messages[last].is_compact_summary = true;
      if (value.isSummary === true) this.summaries.push(last);
    }
    return undefined;
  }

  /** Roo Code stores the reasoning of OpenAI-style models as its own element, before the reply it belongs to. */
  private reasoningItem(item: Record<string, unknown>): undefined {
    const texts: string[] = [];
    if (Array.isArray(item.summary)) for (const s of item.summary) if (isObject(s) && typeof s.text === 'string' && s.text !== '') texts.push(s.text);
    if (typeof item.text === 'string' && item.text !== '') texts.push(item.text);
    if (texts.length === 0) this.encryptedReasoning++;
    this.reasoning.push(...texts);
    return undefined;
  }

  private message(value: Record<string, unknown>, extra: Record<string, unknown>, element: number): void {
    if (value.role === 'assistant') {
      const blocks = emptyAssistantBlocks();
      blocks.reasoning.push(...this.reasoning);
      this.reasoning = [];
      if (typeof value.reasoning_content === 'string' && value.reasoning_content !== '') blocks.reasoning.push(value.reasoning_content);
      for (const block of typeof value.content === 'string' ? [value.content] : (value.content as unknown[])) {
        // Roo Code writes reasoning as `{type: "reasoning", text}` blocks (its condense summaries always carry one).
        if (isObject(block) && block.type === 'reasoning' && typeof block.text === 'string') {
          if (block.text !== '') blocks.reasoning.push(block.text);
        } else addAssistantBlock(blocks, block);
      }
      if (isObject(value.modelInfo) && typeof value.modelInfo.modelId === 'string') {
        extra.model = value.modelInfo.modelId;
        if (!this.models.includes(value.modelInfo.modelId)) this.models.push(value.modelInfo.modelId);
      }
      const tokens = isObject(value.metrics) && isObject(value.metrics.tokens) ? value.metrics.tokens : undefined;
      const provider = isObject(value.modelInfo) && typeof value.modelInfo.providerId === 'string' ? value.modelInfo.providerId : undefined;
      // `cached` is Cline's cache writes plus reads, which it does not tell apart here: counted as reads.
      if (tokens) extra.usage = usageOfCline({ input: num(tokens.prompt), output: num(tokens.completion), writes: 0, reads: num(tokens.cached) }, provider);
      if (isObject(value.metrics) && typeof value.metrics.cost === 'number') extra.cost = value.metrics.cost;
      const message = assistantFromBlocks(blocks, extra);
      this.messages.push(message);
      if (tokens)
        this.replies.push({
          element,
          message: this.messages.length - 1,
          ...(provider === undefined ? {} : { provider }),
          prompt: num(tokens.prompt),
          completion: num(tokens.completion),
          cached: num(tokens.cached),
          ...(typeof value.ts === 'number' ? { ts: value.ts } : {}),
        });
      this.pending = [...(message.tool_calls ?? [])];
      return;
    }
    const { tools, user } = userTurnMessages(value.content, extra);
    for (const t of tools) this.pending = this.pending.filter((c) => c.id !== t.tool_call_id);
    const textResults = this.textResultsOf(user, extra);
    this.messages.push(...tools, ...textResults);
    const emptied = user !== undefined && (user.content === '' || (Array.isArray(user.content) && user.content.length === 0));
    if (user && !(emptied && tools.length + textResults.length > 0)) this.messages.push(user);
    this.pending = [];
  }

  /** Takes `[...] Result:` text blocks out of the user message as results of the calls still unanswered. */
  private textResultsOf(user: UserMessage | undefined, extra: Record<string, unknown>): ToolMessage[] {
    if (!user || this.pending.length === 0) return [];
    const parts: ContentPart[] = typeof user.content === 'string' ? [{ type: 'text', text: user.content }] : [...user.content];
    const results: ToolMessage[] = [];
    const rest: ContentPart[] = [];
    for (const part of parts) {
      const match = part.type === 'text' && this.pending.length > 0 ? RESULT_PREFIX.exec(part.text) : null;
      if (!match || part.type !== 'text') {
        rest.push(part);
        continue;
      }
      const description = match[1];
      let i = this.pending.findIndex((c) => description === c.function.name || description.startsWith(`${c.function.name} `));
      if (i < 0) i = 0;
      const call = this.pending.splice(i, 1)[0];
      results.push({ role: 'tool', tool_call_id: call.id, content: part.text, ...extra });
    }
    if (results.length === 0) return [];
    this.textResults += results.length;
    user.content = typeof user.content === 'string' && rest.length === 0 ? '' : rest;
    return results;
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
