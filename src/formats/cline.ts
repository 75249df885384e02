import type { ContentPart } from '../model/content.js';
import type { Message, ToolCall, ToolMessage, UserMessage } from '../model/message.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { baseName, finishTranscript, isObject, summaryCompactions } from './_items.js';
import { clineTaskWorkspace } from './_cline-workspace.js';
import { acceptRecords, keptUnless, readRecords } from './_records.js';
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
 * - The folder the task worked in goes to metadata.workspace, from the files the extensions keep beside the history
 *   (see clineTaskWorkspace).
 * - `ui_messages.json` (the UI's copy, most assistant text stored `partial`) is not read.
 */
export async function* readCline(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new HistoryBuilder();
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'json' }), ({ value, where }) =>
    where === '' && isObject(value) && Array.isArray(value.messages)
      ? { kind: 'error', code: 'E_FORMAT', message: "Roo Code's versioned history ({version, messages}) is not supported: only the array of messages" }
      : keptUnless(builder.accept(value)),
  );
  if (!first) return;
  const metadata: Record<string, unknown> = { source: { format: 'cline', file } };
  const workspace = await clineTaskWorkspace(file, taskId(file));
  if (workspace !== undefined) metadata.workspace = workspace;
  if (builder.models.length > 0) metadata.models = builder.models;
  if (builder.textResults > 0) metadata.textToolResults = builder.textResults;
  if (builder.encryptedReasoning > 0) metadata.encryptedReasoning = builder.encryptedReasoning;
  yield finishTranscript(
    { id: taskId(file), messages: builder.messages, metadata, indexedMetadata: summaryCompactions(builder.summaries) },
    { file, line: 1, byteOffset: 0, record: first.record },
    units,
  );
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
  /** Reasoning elements waiting for the reply they belong to. */
  private reasoning: string[] = [];
  /** Calls of the latest assistant message that no result has answered yet. */
  private pending: ToolCall[] = [];

  /** Adds one element; returns an error message when it is not a Cline message. */
  accept(value: unknown): string | undefined {
    if (isObject(value) && value.type === 'reasoning' && value.role === undefined) return this.reasoningItem(value);
    if (!isObject(value) || (value.role !== 'user' && value.role !== 'assistant')) return 'expected a message with role "user" or "assistant"';
    if (typeof value.content !== 'string' && !Array.isArray(value.content)) return 'content: expected a string or an array of blocks';
    const extra: Record<string, unknown> = {};
    if (typeof value.ts === 'number') extra.ts = value.ts;
    for (const key of ROO_CONDENSE_KEYS) if (value[key] !== undefined) extra[key] = value[key];
    const before = this.messages.length;
    this.message(value, extra);
    if (value.isSummary === true && this.messages.length > before) {
      const last = this.messages.length - 1;
      this.messages[last].is_compact_summary = true;
      this.summaries.push(last);
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

  private message(value: Record<string, unknown>, extra: Record<string, unknown>): void {
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
      if (tokens) extra.usage = { input_tokens: num(tokens.prompt), cached_input_tokens: num(tokens.cached), output_tokens: num(tokens.completion) };
      if (isObject(value.metrics) && typeof value.metrics.cost === 'number') extra.cost = value.metrics.cost;
      const message = assistantFromBlocks(blocks, extra);
      this.messages.push(message);
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
