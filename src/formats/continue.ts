import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall } from '../model/message.js';
import { finishTranscript, isObject, summaryCompactions } from './_items.js';
import { type Accepted, acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Continue sessions (`~/.continue/sessions/<session id>.json`, `CONTINUE_GLOBAL_DIR`): one transcript per file, id the
 * `sessionId`, the file one unit; `workspaceDirectory` (a file: URI from the IDE) is the project's folder, `workspace`. Built from continuedev/continue's `core/index.d.ts` (`Session`, `ChatHistoryItem`,
 * `ChatMessage`, `Usage`, `SessionUsage`), `core/util/history.ts` (how a session is saved),
 * `gui/src/redux/util/constructMessages.ts` (what the model is sent from a history) and the CLI's
 * `extensions/cli/src/services/ChatHistoryService.ts`, `session.ts` and `compaction.ts`.
 * - `history` holds `{message, contextItems, toolCallStates?, reasoning?, conversationSummary?}` items. Messages are
 *   rebuilt as constructMessages sends them: a user message gets its context items' text before its own content; an
 *   assistant message its `toolCalls` as tool calls, then one tool message per `toolCallStates` entry (its output
 *   items' text, or Continue's placeholder for a call with none); `tool` history items stand for those results and are
 *   used only when no state is recorded for their call; `thinking` messages and the GUI's `reasoning` go to the next
 *   reply's `reasoning_content`; `system` stays.
 * - `conversationSummary` on an item is Continue's compaction: only the items after it are sent, the summary appended
 *   to the system message. A user message `Previous conversation summary: ...` marked `is_compact_summary` follows
 *   that item, listed in metadata.compactions. The CLI's compaction item (an assistant message holding the summary) is
 *   that summary itself, so it is marked instead.
 * - Usage: the IDE extensions record none. The CLI (`cn`) records each reply's `usage` (`promptTokens`,
 *   `completionTokens`, `promptTokensDetails.cachedTokens` / `cacheWriteTokens`) -> `usage` (see continueUsage), and
 *   the session's total (`usage`, with `totalCost`) -> metadata.sessionUsage, a total never spread over calls.
 */
export async function* readContinue(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  let built: { id: string; messages: Message[]; summaries: number[]; metadata: Record<string, unknown> } | undefined;
  const { first, units } = yield* acceptRecords(readRecords(file, options), ({ value }): Accepted => {
    if (!isObject(value) || typeof value.sessionId !== 'string' || !Array.isArray(value.history))
      return { kind: 'error', message: 'a Continue session needs a string sessionId and a history array' };
    const bad = value.history.findIndex((h) => !isObject(h) || !isObject(h.message) || typeof h.message.role !== 'string');
    if (bad >= 0) return { kind: 'error', message: `history[${bad}].message: expected a chat message with a role` };
    built = { id: value.sessionId, ...convert(value.history as Record<string, unknown>[]), metadata: sessionMetadata(value) };
    return { kind: 'kept' };
  });
  if (!first || !built) return;
  const { id, messages, summaries, metadata } = built;
  yield finishTranscript(
    { id, messages, metadata: { source: { format: 'continue', file }, ...metadata }, indexedMetadata: summaryCompactions(summaries) },
    first,
    units,
  );
}

function sessionMetadata(session: Record<string, unknown>): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const key of ['title', 'workspaceDirectory', 'mode', 'chatModelTitle'] as const) if (typeof session[key] === 'string') metadata[key] = session[key];
  // The project's folder, as the other agents' `workspace`: the IDE writes it as a file: URI, the CLI as a path.
  const folder = session.workspaceDirectory;
  if (typeof folder === 'string' && folder !== '') metadata.workspace = folder.startsWith('file://') ? decodeURIComponent(new URL(folder).pathname) : folder;
  if (isObject(session.usage)) metadata.sessionUsage = session.usage;
  return metadata;
}

/** What Continue sends for a call whose state holds no output (core/tools/constants.ts). */
const NO_OUTPUT = 'No tool output';
const CANCELLED = 'The user cancelled this tool call.';
const ERRORED = 'There was an error calling the tool.';

function convert(history: Record<string, unknown>[]): { messages: Message[]; summaries: number[] } {
  const messages: Message[] = [];
  const summaries: number[] = [];
  const answered = new Set<string>();
  let reasoning: string[] = [];
  for (const item of history) {
    const m = item.message as Record<string, unknown>;
    if (m.role === 'thinking') {
      const text = textOf(m.content);
      if (text !== '') reasoning.push(text);
    } else if (m.role === 'system') messages.push({ role: 'system', content: textOf(m.content) });
    else if (m.role === 'user') {
      const context = (Array.isArray(item.contextItems) ? item.contextItems : [])
        .filter(isObject)
        .map((c) => `${typeof c.content === 'string' ? c.content : ''}\n`)
        .filter((t) => t.trim() !== '');
      const own = parts(m.content);
      messages.push({
        role: 'user',
        content:
          context.length === 0 && own.length === 1 && own[0].type === 'text'
            ? own[0].text
            : [...context.map((text) => ({ type: 'text' as const, text })), ...own],
      });
    } else if (m.role === 'tool') {
      const id = typeof m.toolCallId === 'string' ? m.toolCallId : undefined;
      if (id !== undefined && !answered.has(id)) {
        answered.add(id);
        messages.push({ role: 'tool', tool_call_id: id, content: textOf(m.content) });
      }
    } else if (m.role === 'assistant') {
      if (isObject(item.reasoning) && typeof item.reasoning.text === 'string' && item.reasoning.text !== '') reasoning.push(item.reasoning.text);
      const reply = assistant(m, reasoning);
      reasoning = [];
      if (typeof item.conversationSummary === 'string' && item.conversationSummary === textOf(m.content)) {
        reply.is_compact_summary = true;
        summaries.push(messages.length);
      }
      messages.push(reply);
      for (const state of Array.isArray(item.toolCallStates) ? item.toolCallStates.filter(isObject) : []) {
        const id = typeof state.toolCallId === 'string' ? state.toolCallId : undefined;
        if (id === undefined || answered.has(id)) continue;
        answered.add(id);
        messages.push({ role: 'tool', tool_call_id: id, content: toolOutput(state), ...(state.status === 'errored' ? { is_error: true } : {}) });
      }
    }
    if (typeof item.conversationSummary === 'string' && !(messages.at(-1)?.is_compact_summary === true)) {
      summaries.push(messages.length);
      messages.push({ role: 'user', content: `Previous conversation summary:\n\n ${item.conversationSummary}`, is_compact_summary: true });
    }
  }
  if (reasoning.length > 0) messages.push({ role: 'assistant', content: null, reasoning_content: reasoning.join('\n\n') });
  return { messages, summaries };
}

function assistant(m: Record<string, unknown>, reasoning: string[]): AssistantMessage {
  const text = textOf(m.content);
  const reply: AssistantMessage = { role: 'assistant', content: text === '' ? null : text };
  if (reasoning.length > 0) reply.reasoning_content = reasoning.join('\n\n');
  const calls: ToolCall[] = (Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObject) : []).flatMap((tc) => {
    const fn = isObject(tc.function) ? tc.function : {};
    if (typeof tc.id !== 'string') return [];
    return [
      {
        id: tc.id,
        type: 'function' as const,
        function: { name: typeof fn.name === 'string' ? fn.name : 'unknown', arguments: typeof fn.arguments === 'string' ? fn.arguments : '' },
      },
    ];
  });
  if (calls.length > 0) reply.tool_calls = calls;
  if (isObject(m.usage)) reply.usage = continueUsage(m.usage);
  return reply;
}

/**
 * Continue's `Usage` (OpenAI's usage object in camel case) as `recordedCall` reads it. Its adapters fill it two ways
 * (packages/openai-adapters): from OpenAI, `promptTokens` is the whole prompt, of which `cachedTokens` were read; from
 * Anthropic, `promptTokens` is the uncached input alone, beside `cachedTokens` and `cacheWriteTokens`, which only
 * that adapter writes (0 included): its presence tells the two apart.
 */
function continueUsage(u: Record<string, unknown>): Record<string, number> {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const details = isObject(u.promptTokensDetails) ? u.promptTokensDetails : {};
  if (details.cacheWriteTokens !== undefined)
    return {
      input_tokens: n(u.promptTokens),
      cache_read_input_tokens: n(details.cachedTokens),
      cache_creation_input_tokens: n(details.cacheWriteTokens),
      output_tokens: n(u.completionTokens),
    };
  return { input_tokens: n(u.promptTokens), cached_input_tokens: n(details.cachedTokens), output_tokens: n(u.completionTokens) };
}

function toolOutput(state: Record<string, unknown>): string {
  const output = Array.isArray(state.output) ? state.output.filter(isObject) : [];
  if (state.status === 'canceled') return CANCELLED;
  if (output.length === 0) return state.status === 'errored' ? ERRORED : NO_OUTPUT;
  return output.map((c) => (typeof c.content === 'string' ? c.content : '')).join('\n\n');
}

function parts(content: unknown): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((p): ContentPart => {
    if (p.type === 'imageUrl' && isObject(p.imageUrl) && typeof p.imageUrl.url === 'string') return { type: 'image_url', image_url: { url: p.imageUrl.url } };
    return { type: 'text', text: typeof p.text === 'string' ? p.text : JSON.stringify(p) };
  });
}

function textOf(content: unknown): string {
  return parts(content)
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join('');
}
