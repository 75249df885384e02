import * as z from 'zod';
import type { CompactionHandler } from '../../../context/compaction-handler.js';
import { type AssistantMessage, type Message, type ToolMessage, isAssistant, isTool } from '../../../model/message.js';
import { countMessage, totalOf } from '../../../tokens/breakdown.js';
import type { Tokenizer } from '../../../tokens/tokenizer.js';
import { EditMemo } from './edit-memo.js';

/** What a cleared tool result reads, in the replay (the API's own wording is not published; only its size matters). */
export const CLEARED_RESULT = '[tool result cleared]';
/** What cleared tool inputs read, with `clear_tool_inputs`. */
export const CLEARED_INPUT = '{}';

const tokens = (type: 'input_tokens' | 'tool_uses') => z.strictObject({ type: z.literal(type), value: z.number().int().nonnegative() });

/**
 * One `clear_tool_uses_20250919` edit of the Messages API's `context_management`, with the documented defaults: clear
 * when the prompt passes 100,000 input tokens (or a number of tool uses), keep the last 3 tool uses, no minimum, no tool
 * excluded, inputs kept.
 */
const ClearToolUsesSchema = z.strictObject({
  type: z.literal('clear_tool_uses_20250919'),
  trigger: z.union([tokens('input_tokens'), tokens('tool_uses')]).default({ type: 'input_tokens', value: 100_000 }),
  keep: tokens('tool_uses').default({ type: 'tool_uses', value: 3 }),
  clear_at_least: tokens('input_tokens').nullable().default(null),
  exclude_tools: z.array(z.string()).default([]),
  clear_tool_inputs: z.union([z.boolean(), z.array(z.string())]).default(false),
});
export type ClearToolUses = z.output<typeof ClearToolUsesSchema>;

/** The `context_management` object of a Messages API request, as `tune` exports it and the API takes it. */
export const AnthropicContextManagementSchema = z.strictObject({ edits: z.array(ClearToolUsesSchema).min(1) });
export type AnthropicContextManagement = z.output<typeof AnthropicContextManagementSchema>;

interface ToolUse {
  call: AssistantMessage;
  slot: number;
  /** Index of the result in the messages, -1 when the call has none yet. */
  result: number;
}

function toolUses(messages: readonly Message[]): ToolUse[] {
  const uses: ToolUse[] = [];
  const open = new Map<string, ToolUse>();
  messages.forEach((m, i) => {
    if (isAssistant(m)) {
      m.tool_calls?.forEach((call, slot) => {
        const use = { call: m, slot, result: -1 };
        uses.push(use);
        open.set(call.id, use);
      });
    } else if (isTool(m)) {
      const use = open.get(m.tool_call_id);
      if (use && use.result === -1) use.result = i;
    }
  });
  return uses;
}

/**
 * One edit applied to the full history, as the API applies it before the prompt reaches the model: once the prompt
 * passes the trigger, every tool use but the last `keep` (and those of excluded tools) has its result replaced by a
 * placeholder, and its input too when `clear_tool_inputs` names its tool (or is true), oldest first. When clearing all
 * of them would free fewer than `clear_at_least` tokens, nothing is cleared: the minimum exists so that a clear is worth
 * the prompt cache it breaks.
 */
export function applyClearToolUses(messages: readonly Message[], promptTokens: number, edit: ClearToolUses, tok: Tokenizer, memo = new EditMemo()): Message[] {
  const uses = toolUses(messages);
  const triggered = edit.trigger.type === 'input_tokens' ? promptTokens > edit.trigger.value : uses.length > edit.trigger.value;
  if (!triggered) return messages as Message[];
  const eligible = uses
    .slice(0, Math.max(0, uses.length - edit.keep.value))
    .filter((u) => !edit.exclude_tools.includes(u.call.tool_calls![u.slot].function.name));
  const clearsInput = (name: string) => (Array.isArray(edit.clear_tool_inputs) ? edit.clear_tool_inputs.includes(name) : edit.clear_tool_inputs);
  const out = [...messages];
  const clearedSlots = new Map<AssistantMessage, number[]>();
  for (const use of eligible) {
    const result = use.result >= 0 ? (messages[use.result] as ToolMessage) : undefined;
    if (result && result.content !== CLEARED_RESULT) out[use.result] = memo.get(result, 'cleared', () => ({ ...result, content: CLEARED_RESULT }));
    const call = use.call.tool_calls![use.slot];
    if (clearsInput(call.function.name) && call.function.arguments !== CLEARED_INPUT) {
      const slots = clearedSlots.get(use.call) ?? [];
      slots.push(use.slot);
      clearedSlots.set(use.call, slots);
    }
  }
  for (let i = 0; i < out.length; i++) {
    const original = out[i] as AssistantMessage;
    const slots = clearedSlots.get(original);
    if (!slots) continue;
    out[i] = memo.get(original, `inputs ${slots.join(',')}`, () => ({
      ...original,
      tool_calls: original.tool_calls!.map((c, slot) => (slots.includes(slot) ? { ...c, function: { name: c.function.name, arguments: CLEARED_INPUT } } : c)),
    }));
  }
  if (edit.clear_at_least !== null) {
    let freed = 0;
    for (let i = 0; i < out.length; i++) if (out[i] !== messages[i]) freed += totalOf(countMessage(messages[i], tok)) - totalOf(countMessage(out[i], tok));
    if (freed < edit.clear_at_least.value) return messages as Message[];
  }
  return out;
}

/**
 * The replay of an exported `context_management` object: a handler run before every call. The client keeps the full
 * history and the API edits each prompt afresh, so the handler keeps the history it was given (what it returned last
 * time, with its own edits undone, plus the messages added since) and edits that.
 */
export function anthropicContextEditing(config: AnthropicContextManagement, tok: Tokenizer): CompactionHandler {
  let full: Message[] = [];
  const memo = new EditMemo();
  let sent: readonly Message[] = [];
  let sentTokens = 0;
  let fullTokens = 0;
  return (request) => {
    const added = request.messages.slice(sent.length);
    full = [...full, ...added];
    fullTokens += request.tokens - sentTokens;
    let view: Message[] = full;
    for (const edit of config.edits) view = applyClearToolUses(view, fullTokens, edit, tok, memo);
    let viewTokens = fullTokens;
    for (let i = 0; i < view.length; i++) if (view[i] !== full[i]) viewTokens += totalOf(countMessage(view[i], tok)) - totalOf(countMessage(full[i], tok));
    sent = view;
    sentTokens = viewTokens;
    return { messages: view, tokens: viewTokens };
  };
}
