import type { AssistantMessage, Message } from '../model/message.js';
import { contentMessages } from './_gemini-content.js';
import { geminiUsage } from './_gemini-parts.js';
import { baseName, errorItem, finishTranscript, isObject, skippedItem } from './_items.js';
import { lineItem, readJsonl } from './_jsonl.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * Qwen Code chat recordings (`~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl`): one transcript per file, id
 * the `sessionId`. Built from qwen-code's writer (packages/core/src/services/chatRecordingService.ts, `ChatRecord`;
 * telemetry/uiTelemetry.ts and types.ts for `ui_telemetry`; core/openaiContentGenerator/converter.ts for the usage).
 * - Every line is a `ChatRecord` `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version, gitBranch?}`
 *   appended in order; `parentUuid` is the record written before it, so a rewind or a branch forks the tree. The
 *   transcript is the chain from the last record back to the root (what a resume restores); records off it are
 *   skipped as `record:off-branch/<type>`, and the usage of the calls among them is summed in metadata.offBranchUsage.
 * - `message` holds the Gemini API `Content` (`{role, parts}`) sent or received: `user` and `tool_result` records
 *   (`functionResponse` parts -> tool messages) and `assistant` records (`role: model`: text, thought parts ->
 *   `reasoning_content` marked `reasoning_not_resent`, `functionCall` parts -> tool calls).
 * - `usageMetadata` on an assistant record -> `usage` (Gemini's fields): `promptTokenCount` is the whole prompt, the
 *   cached part (`cachedContentTokenCount`) included. Output is the candidates plus the thoughts, except where
 *   `totalTokenCount` equals prompt + candidates: an OpenAI-compatible provider's `completion_tokens`, which Qwen
 *   copies into `candidatesTokenCount`, already holds the reasoning tokens it also copies into `thoughtsTokenCount`.
 * - `system/chat_compression`: the compressed history Qwen sends from then on (`systemPayload.compressedHistory`:
 *   the summary turns and the kept tail) follows as messages marked `is_compact_summary` (seen again, no call); listed in
 *   metadata.compactions with the range of that history (`replacementFrom`, `replacementTo`).
 * - `system/ui_telemetry` records carrying an `api_response` event of a subagent (`subagent_name`, `subagent_id`, or
 *   a `<session>#<agent>#<round>` prompt id): the subagent's calls, which no assistant line holds, listed by
 *   subagent in metadata.embeddedCalls (the session's bill, kept apart from its own calls). The main loop's
 *   `api_response` events repeat its assistant lines' usage and are counted in metadata.mainApiResponses.
 * - `system/session_model` (`{modelId, authType}`): its `authType` (`qwen-oauth`: DashScope) goes in metadata.authType,
 *   which decides the replay's prompt cache (billing/cache-choice.ts); the record is skipped.
 * - Other `system` records, and `user` or `assistant` records without a message or usage, are skipped as
 *   `record:<type>/<subtype>`.
 */
export async function* readQwen(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const records: { value: Record<string, unknown>; at: SourcePosition }[] = [];
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind !== 'value') yield lineItem(entry);
    else if (!isObject(entry.value) || typeof entry.value.type !== 'string' || typeof entry.value.uuid !== 'string')
      yield errorItem(entry.at, 'E_SCHEMA', 'a Qwen Code record needs a string type and uuid');
    else records.push({ value: entry.value, at: entry.at });
  }
  if (records.length === 0) return;
  const chain = activeChain(records.map((r) => r.value));
  const builder = new ChatBuilder();
  let first: SourcePosition | undefined;
  let units = 0;
  for (const [i, { value, at }] of records.entries()) {
    const reason = chain.has(i) ? builder.add(value) : builder.offBranch(value);
    if (reason !== undefined) yield skippedItem(at, reason);
    else {
      first ??= at;
      units++;
    }
  }
  if (!first) return;
  const { messages, compactions, metadata } = builder.finish();
  const sessionId = records.find((r) => typeof r.value.sessionId === 'string')?.value.sessionId;
  const id = typeof sessionId === 'string' ? sessionId : baseName(file);
  const indexedMetadata = (at: (index: number) => number) =>
    compactions.length === 0
      ? {}
      : {
          compactions: compactions.map((c) => ({
            index: at(c.from),
            summaryIndex: at(c.from),
            replacementFrom: at(c.from),
            replacementTo: at(c.to),
            replacementHistoryItems: c.items,
          })),
        };
  yield finishTranscript({ id, messages, metadata: { source: { format: 'qwen', file }, ...metadata }, indexedMetadata }, first, units);
}

/** The records on the chain from the last record back to the root, by index. */
function activeChain(records: readonly Record<string, unknown>[]): Set<number> {
  const byId = new Map<string, number>();
  records.forEach((r, i) => byId.set(r.uuid as string, i));
  const chain = new Set<number>();
  for (let i: number | undefined = records.length - 1; i !== undefined && !chain.has(i);) {
    chain.add(i);
    const parent: unknown = records[i].parentUuid;
    i = typeof parent === 'string' ? byId.get(parent) : undefined;
  }
  return chain;
}

const META_KEYS = ['cwd', 'version', 'gitBranch'] as const;
const USER_TYPES = new Set(['user', 'tool_result']);

class ChatBuilder {
  private readonly messages: Message[] = [];
  private readonly compactions: { from: number; to: number; items: number }[] = [];
  private readonly metadata: Record<string, unknown> = {};
  private readonly models: string[] = [];
  /** Calls still waiting for their result, by tool name: for responses recorded without an id. */
  private readonly open = new Map<string, string[]>();
  private readonly subagents = new Map<string, { model?: string; usage: Record<string, number>; timestamp?: string }[]>();
  private readonly offBranchCalls = { calls: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };
  private mainApiResponses = 0;

  /** One record of the active chain: undefined when it is kept, else the reason it is skipped. */
  add(r: Record<string, unknown>): string | undefined {
    for (const key of META_KEYS) if (typeof r[key] === 'string') this.metadata[key] = r[key];
    const kind = `record:${String(r.type)}${typeof r.subtype === 'string' ? `/${r.subtype}` : ''}`;
    if (r.type === 'system') return this.system(r, kind);
    const message = isObject(r.message) ? r.message : undefined;
    if (r.type === 'assistant') {
      if (!message && !isObject(r.usageMetadata)) return kind;
      const [reply] = contentMessages(message ?? { role: 'model', parts: [] }, r.uuid as string, this.open) as [AssistantMessage];
      reply.reasoning_not_resent = true;
      if (isObject(r.usageMetadata)) reply.usage = qwenUsage(r.usageMetadata);
      if (typeof r.model === 'string') {
        reply.model = r.model;
        if (!this.models.includes(r.model)) this.models.push(r.model);
      }
      this.push([reply], r.timestamp);
      return undefined;
    }
    if (USER_TYPES.has(r.type as string) && message) {
      this.push(contentMessages({ ...message, role: 'user' }, r.uuid as string, this.open), r.timestamp);
      return undefined;
    }
    return kind;
  }

  /** A record off the active chain: skipped, its call's usage summed apart. */
  offBranch(r: Record<string, unknown>): string {
    if (r.type === 'assistant' && isObject(r.usageMetadata)) {
      const usage = qwenUsage(r.usageMetadata);
      this.offBranchCalls.calls++;
      this.offBranchCalls.input_tokens += usage.input_tokens;
      this.offBranchCalls.cached_input_tokens += usage.cached_input_tokens;
      this.offBranchCalls.output_tokens += usage.output_tokens;
    }
    return `record:off-branch/${String(r.type)}`;
  }

  private system(r: Record<string, unknown>, kind: string): string | undefined {
    const payload = isObject(r.systemPayload) ? r.systemPayload : undefined;
    // The backend the session ran on (`session_model`: `{modelId, authType}`): which prompt cache billed it.
    if (r.subtype === 'session_model' && typeof payload?.authType === 'string') this.metadata.authType = payload.authType;
    if (r.subtype === 'chat_compression' && payload && Array.isArray(payload.compressedHistory)) {
      const from = this.messages.length;
      const history = payload.compressedHistory.filter(isObject);
      history.forEach((c, k) => this.push(contentMessages(c, `${String(r.uuid)}#${k}`, this.open), r.timestamp));
      if (this.messages.length > from) {
        // What the model sees again, not new turns (as Codex's replacement history): none of it is a call.
        for (const m of this.messages.slice(from)) m.is_compact_summary = true;
        this.compactions.push({ from, to: this.messages.length, items: history.length });
      }
      return undefined;
    }
    if (r.subtype === 'ui_telemetry' && payload && isObject(payload.uiEvent) && payload.uiEvent['event.name'] === 'qwen-code.api_response') {
      const agent = subagentOf(payload.uiEvent, r.sessionId);
      if (agent === undefined) this.mainApiResponses++;
      else {
        const e = payload.uiEvent;
        const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
        const usage = qwenUsage({
          promptTokenCount: n(e.input_token_count),
          candidatesTokenCount: n(e.output_token_count),
          cachedContentTokenCount: n(e.cached_content_token_count),
          thoughtsTokenCount: n(e.thoughts_token_count),
          ...(n(e.total_token_count) > 0 ? { totalTokenCount: n(e.total_token_count) } : {}),
        });
        const call = {
          usage,
          ...(typeof e.model === 'string' ? { model: e.model } : {}),
          ...(typeof r.timestamp === 'string' ? { timestamp: r.timestamp } : {}),
        };
        this.subagents.set(agent, [...(this.subagents.get(agent) ?? []), call]);
      }
    }
    return kind;
  }

  private push(messages: Message[], timestamp: unknown): void {
    if (typeof timestamp === 'string') for (const m of messages) m.timestamp = timestamp;
    this.messages.push(...messages);
  }

  finish(): { messages: Message[]; compactions: { from: number; to: number; items: number }[]; metadata: Record<string, unknown> } {
    const metadata = { ...this.metadata };
    if (this.models.length > 0) metadata.models = this.models;
    if (this.subagents.size > 0) metadata.embeddedCalls = [...this.subagents].map(([agentId, calls]) => ({ agentId, calls }));
    if (this.mainApiResponses > 0) metadata.mainApiResponses = this.mainApiResponses;
    if (this.offBranchCalls.calls > 0) metadata.offBranchUsage = this.offBranchCalls;
    return { messages: this.messages, compactions: this.compactions, metadata };
  }
}

/** The subagent an `api_response` event came from, or undefined for the session's own loop. */
function subagentOf(e: Record<string, unknown>, sessionId: unknown): string | undefined {
  for (const key of ['subagent_id', 'subagent_name']) if (typeof e[key] === 'string' && e[key] !== '') return e[key];
  // Older builds named a subagent's requests `<session>#<agent>#<round>` only.
  const parts = typeof e.prompt_id === 'string' ? e.prompt_id.split('#') : [];
  return parts.length === 3 && parts[0] === sessionId && parts[1] !== '' && /^\d+$/.test(parts[2]) ? parts[1] : undefined;
}

/**
 * Qwen's `usageMetadata` as `geminiUsage` reads Gemini's: the thoughts are output, added to the candidates unless the
 * record shows them inside the candidates already (`totalTokenCount` = prompt + candidates, with thoughts > 0).
 */
export function qwenUsage(u: Record<string, unknown>): Record<string, number> {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const prompt = n(u.promptTokenCount);
  const candidates = n(u.candidatesTokenCount);
  const thoughts = n(u.thoughtsTokenCount);
  const inside = thoughts > 0 && typeof u.totalTokenCount === 'number' && u.totalTokenCount === prompt + candidates;
  return geminiUsage({
    input: prompt,
    output: inside ? candidates - thoughts : candidates,
    cached: n(u.cachedContentTokenCount),
    thoughts,
    tool: n(u.toolUsePromptTokenCount),
    ...(u.totalTokenCount === undefined ? {} : { total: n(u.totalTokenCount) }),
  });
}
