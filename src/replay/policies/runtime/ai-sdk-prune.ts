import * as z from 'zod';
import type { CompactionHandler } from '../../../context/compaction-handler.js';
import { type AssistantMessage, type Message, type ToolMessage, isAssistant, isTool } from '../../../model/message.js';
import { countMessage, totalOf } from '../../../tokens/breakdown.js';
import type { Tokenizer } from '../../../tokens/tokenizer.js';
import { EditMemo } from './edit-memo.js';

const KEEP_LAST = /^before-last-(\d+)-messages$/;
const ToolCallsType = z.union([
  z.literal('all'),
  z.literal('before-last-message'),
  z.string().regex(KEEP_LAST, 'all, before-last-message or before-last-N-messages'),
]);

/**
 * The options of the AI SDK's `pruneMessages` (besides `messages`), with its defaults: reasoning kept, no tool call
 * removed, messages left empty removed.
 */
export const AiSdkPruneSchema = z.strictObject({
  reasoning: z.enum(['all', 'before-last-message', 'none']).default('none'),
  toolCalls: z.union([z.literal('none'), ToolCallsType, z.array(z.strictObject({ type: ToolCallsType, tools: z.array(z.string()).optional() }))]).default([]),
  emptyMessages: z.enum(['keep', 'remove']).default('remove'),
});
export type AiSdkPrune = z.output<typeof AiSdkPruneSchema>;

function rules(toolCalls: AiSdkPrune['toolCalls']): { keepLast: number | undefined; tools?: string[] }[] {
  const list = toolCalls === 'none' ? [] : typeof toolCalls === 'string' ? [{ type: toolCalls }] : toolCalls;
  return list.map((r) => ({
    keepLast: r.type === 'all' ? undefined : r.type === 'before-last-message' ? 1 : Number(KEEP_LAST.exec(r.type)![1]),
    ...('tools' in r && r.tools ? { tools: r.tools } : {}),
  }));
}

const noText = (content: unknown): boolean => content === null || content === undefined || content === '' || (Array.isArray(content) && content.length === 0);

/** A message the SDK would see with no parts: an assistant message has its reasoning, text and calls as parts. */
const isEmpty = (m: Message): boolean =>
  isAssistant(m) ? m.reasoning_content === undefined && (m.tool_calls?.length ?? 0) === 0 && noText(m.content) : !isTool(m) && noText(m.content);

/**
 * The messages as the SDK holds them: a step's tool results are one `tool` message (its parts), so a run of canonical
 * tool messages is one message; any other message is its own.
 */
function sdkMessages(messages: readonly Message[]): Message[][] {
  const out: Message[][] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (isTool(m) && last !== undefined && last.length > 0 && isTool(last[0])) last.push(m);
    else out.push([m]);
  }
  return out;
}

/**
 * `pruneMessages` on canonical messages, rule by rule as the SDK applies them to its own messages (a step's tool results
 * in one `tool` message): reasoning goes from every assistant message (or all but the last); each tool-call rule removes,
 * from the messages before its last N, the calls and results of the listed tools (all tools without a list) unless the
 * call or its result is among those last N; messages left empty go when `emptyMessages` is `remove`. A canonical tool
 * message is one part of the SDK's: it goes with its result, and a tool message left with no part is never kept (the
 * canonical form has no empty tool message; the SDK keeps one with `emptyMessages: 'keep'`).
 */
export function pruneMessagesLike(messages: readonly Message[], options: AiSdkPrune, memo = new EditMemo()): Message[] {
  let groups = sdkMessages(messages);
  if (options.reasoning !== 'none') {
    groups = groups.map((g, i) => {
      const m = g[0];
      if (!isAssistant(m) || m.reasoning_content === undefined || (options.reasoning === 'before-last-message' && i === groups.length - 1)) return g;
      return [
        memo.get(m, 'no reasoning', () => {
          const { reasoning_content: _dropped, ...rest } = m;
          return rest as AssistantMessage;
        }),
      ];
    });
  }
  for (const rule of rules(options.toolCalls)) {
    // The SDK reads "before the last 0 messages" as keeping every call (`slice(-0)` is the whole list).
    const from = rule.keepLast === undefined ? groups.length : rule.keepLast === 0 ? 0 : Math.max(0, groups.length - rule.keepLast);
    const kept = new Set<string>();
    for (const m of groups.slice(from).flat()) {
      if (isAssistant(m)) for (const c of m.tool_calls ?? []) kept.add(c.id);
      if (isTool(m)) kept.add(m.tool_call_id);
    }
    const names = new Map<string, string>();
    for (const m of groups.flat()) if (isAssistant(m)) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
    const removes = (id: string) => !kept.has(id) && (rule.tools === undefined || rule.tools.includes(names.get(id) ?? ''));
    groups = groups.map((g, i) => {
      const m = g[0];
      if (i >= from || m === undefined) return g;
      if (isTool(m)) return g.filter((r) => !removes((r as ToolMessage).tool_call_id));
      if (!isAssistant(m) || !m.tool_calls || !m.tool_calls.some((c) => removes(c.id))) return g;
      const calls = m.tool_calls.filter((c) => !removes(c.id));
      return [
        memo.get(m, `calls ${calls.map((c) => c.id).join(',')}`, () => {
          const { tool_calls: _all, ...rest } = m;
          const e: AssistantMessage = calls.length > 0 ? { ...rest, tool_calls: calls } : rest;
          // Reasoning goes with the parts after it when none of them is left (the SDK keeps no reasoning that led nowhere).
          if (noText(m.content) && calls.length === 0) delete e.reasoning_content;
          return e;
        }),
      ];
    });
  }
  const out = groups.flat();
  return options.emptyMessages === 'remove' ? out.filter((m) => !isEmpty(m)) : out;
}

/**
 * The replay of exported `pruneMessages` options: an agent that calls it on its whole history before every model call,
 * as the SDK's documentation shows, so each prompt is pruned afresh from the full history the handler keeps.
 */
export function aiSdkPrune(options: AiSdkPrune, tok: Tokenizer): CompactionHandler {
  const full: Message[] = [];
  const memo = new EditMemo();
  let sent: readonly Message[] = [];
  let fullTokens = 0;
  let sentTokens = 0;
  return (request) => {
    full.push(...request.messages.slice(sent.length));
    fullTokens += request.tokens - sentTokens;
    const view = pruneMessagesLike(full, options, memo);
    let viewTokens = fullTokens;
    const inView = new Set(view);
    const inFull = new Set(full);
    for (const m of full) if (!inView.has(m)) viewTokens -= totalOf(countMessage(m, tok));
    for (const m of view) if (!inFull.has(m)) viewTokens += totalOf(countMessage(m, tok));
    sent = view;
    sentTokens = viewTokens;
    return { messages: view, tokens: viewTokens };
  };
}
