import * as z from 'zod';
import type { CompactionHandler } from '../../../context/compaction-handler.js';
import { contentText } from '../../../model/content.js';
import { type AssistantMessage, type Message, type ToolMessage, isAssistant, isTool, messageContent } from '../../../model/message.js';
import { countMessage, totalOf } from '../../../tokens/breakdown.js';
import type { Tokenizer } from '../../../tokens/tokenizer.js';

/** LangChain's placeholder for a cleared tool result (`DEFAULT_TOOL_PLACEHOLDER`). */
const LANGCHAIN_PLACEHOLDER = '[cleared]';
/** LangChain's `countTokensApproximately`: characters per token. */
const CHARS_PER_TOKEN = 4;

const TriggerSchema = z
  .strictObject({
    tokens: z.number().positive().optional(),
    messages: z.number().int().positive().optional(),
    fraction: z.never({ error: "a fraction of the model profile's window: the replay has no model profile, give tokens" }).optional(),
  })
  .refine((t) => t.tokens !== undefined || t.messages !== undefined, 'give tokens or messages');

/**
 * The options of LangChain JS's `ClearToolUsesEdit` (the `contextEditingMiddleware` edit), as its constructor takes them,
 * with its defaults: clear once the messages count 100,000 tokens, keep the last 3 tool results, inputs kept, no tool
 * excluded, `[cleared]` in place of a result, no minimum (`clearAtLeast` is deprecated). A trigger or keep given as a
 * fraction of the model's window is refused: the replay has no model profile.
 */
export const LangChainClearToolUsesSchema = z.strictObject({
  // One condition or a list of them (any one met): read as a list, so an issue names the condition's field.
  trigger: z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(TriggerSchema)).default([{ tokens: 100_000 }]),
  keep: z.union([z.strictObject({ messages: z.number().int().nonnegative() }), z.strictObject({ tokens: z.number().nonnegative() })]).default({ messages: 3 }),
  clearToolInputs: z.boolean().default(false),
  excludeTools: z.array(z.string()).default([]),
  placeholder: z.string().default(LANGCHAIN_PLACEHOLDER),
  clearAtLeast: z.number().nonnegative().default(0),
});
export type LangChainClearToolUses = z.output<typeof LangChainClearToolUsesSchema>;
export type LangChainClearToolUsesInput = z.input<typeof LangChainClearToolUsesSchema>;

const charsMemo = new WeakMap<Message, number>();

function args(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}

/**
 * The characters `countTokensApproximately` counts in a message as a LangChain agent holds it: its text, an AI message's
 * `tool_calls` as JSON (arguments parsed, as a chat model gives them), a tool message's call id. Reasoning is not text
 * to it, nor are images.
 */
function chars(m: Message): number {
  let n = charsMemo.get(m);
  if (n !== undefined) return n;
  n = contentText(messageContent(m) as Parameters<typeof contentText>[0]).length;
  if (isAssistant(m) && m.tool_calls && m.tool_calls.length > 0) {
    n += JSON.stringify(m.tool_calls.map((c) => ({ name: c.function.name, args: args(c.function.arguments), id: c.id, type: 'tool_call' }))).length;
  }
  if (isTool(m)) n += m.tool_call_id.length;
  charsMemo.set(m, n);
  return n;
}

/** LangChain's default token counter (`tokenCountMethod: "approx"`): characters ÷ 4, rounded up, over the messages only. */
export function langChainApproxTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const m of messages) total += chars(m);
  return Math.ceil(total / CHARS_PER_TOKEN);
}

const callOf = (m: AssistantMessage, id: string) => m.tool_calls?.find((c) => c.id === id);

/**
 * `ClearToolUsesEdit.apply` on the agent's messages, step for step as LangChain JS 1.x runs it before a model call: tool
 * messages whose call no earlier AI message holds are dropped; then, when a trigger condition is met (every bound of
 * one condition reached: `tokens` by its approximate count, `messages` by their number), every tool result but the last
 * `keep` (counted in tool messages, or in the tokens they fit) is replaced by the placeholder, oldest first, skipping
 * those already cleared and the excluded tools, with its call's arguments emptied when `clearToolInputs`; with
 * `clearAtLeast`, kept results are cleared too, newest first, until that many tokens are freed. A step's results are
 * taken in the order of its calls, as the agent holds them. `cleared` holds the messages it cleared: LangChain marks
 * them so and never clears them again.
 */
export function applyLangChainClearToolUses(messages: readonly Message[], edit: LangChainClearToolUses, cleared: WeakSet<Message>): Message[] {
  const calls = new Set<string>();
  const out = messages.filter((m) => {
    if (isAssistant(m)) for (const c of m.tool_calls ?? []) calls.add(c.id);
    return !isTool(m) || calls.has(m.tool_call_id);
  });
  let totalChars = 0;
  for (const m of out) totalChars += chars(m);
  const tokens = Math.ceil(totalChars / CHARS_PER_TOKEN);
  const triggered = edit.trigger.some((c) => (c.tokens === undefined || tokens >= c.tokens) && (c.messages === undefined || out.length >= c.messages));
  if (!triggered) return out.length === messages.length ? (messages as Message[]) : out;

  const candidates = _inCallOrder(out).flatMap((idx) => (isTool(out[idx]) ? [{ idx, msg: out[idx] as ToolMessage }] : []));
  const keepCount = _keepCount(candidates, edit);
  let freed = 0;
  const clear = ({ idx, msg }: { idx: number; msg: ToolMessage }) => {
    if (cleared.has(msg)) return;
    let ai = -1;
    for (let i = idx - 1; i >= 0 && ai < 0; i--) if (isAssistant(out[i]) && callOf(out[i] as AssistantMessage, msg.tool_call_id)) ai = i;
    if (ai < 0) return;
    const call = callOf(out[ai] as AssistantMessage, msg.tool_call_id)!;
    if (edit.excludeTools.includes(msg.name || call.function.name)) return;
    const replace = (i: number, m: Message) => {
      totalChars += chars(m) - chars(out[i]);
      out[i] = m;
    };
    const placeholder: ToolMessage = { ...msg, content: edit.placeholder };
    cleared.add(placeholder);
    replace(idx, placeholder);
    if (edit.clearToolInputs) {
      const a = out[ai] as AssistantMessage;
      replace(ai, { ...a, tool_calls: a.tool_calls!.map((c) => (c.id === msg.tool_call_id ? { ...c, function: { ...c.function, arguments: '{}' } } : c)) });
    }
    freed = Math.max(0, tokens - Math.ceil(totalChars / CHARS_PER_TOKEN));
  };
  const spared = Math.min(keepCount, candidates.length);
  for (const c of candidates.slice(0, candidates.length - spared)) clear(c);
  if (edit.clearAtLeast > 0 && freed < edit.clearAtLeast && spared > 0 && spared < candidates.length) {
    const remaining = candidates.slice(-spared);
    for (let i = remaining.length - 1; i >= 0 && freed < edit.clearAtLeast; i--) clear(remaining[i]);
  }
  return out.length === messages.length && out.every((m, i) => m === messages[i]) ? (messages as Message[]) : out;
}

/**
 * The messages' indices in the order the agent holds them: LangChain's tool node returns a step's results in the order
 * of its calls, where a recorded session may have logged them as they finished.
 */
function _inCallOrder(messages: readonly Message[]): number[] {
  const order: number[] = [];
  let slotOf = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (isAssistant(m)) slotOf = new Map((m.tool_calls ?? []).map((c, slot) => [c.id, slot]));
    if (!isTool(m) || (i > 0 && isTool(messages[i - 1]))) {
      if (!isTool(m)) order.push(i);
      continue;
    }
    let end = i;
    while (end < messages.length && isTool(messages[end])) end++;
    const run = Array.from({ length: end - i }, (_, k) => i + k);
    const slot = (j: number) => slotOf.get((messages[j] as ToolMessage).tool_call_id) ?? Number.MAX_SAFE_INTEGER;
    order.push(...run.sort((a, b) => slot(a) - slot(b) || a - b));
  }
  return order;
}

/** How many of the last tool results `keep` spares: a number of them, or as many as fit its tokens, newest first. */
function _keepCount(candidates: readonly { msg: ToolMessage }[], edit: LangChainClearToolUses): number {
  if ('messages' in edit.keep) return edit.keep.messages;
  let tokens = 0;
  let count = 0;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const t = langChainApproxTokens([candidates[i].msg]);
    if (tokens + t > edit.keep.tokens) break;
    tokens += t;
    count++;
  }
  return count;
}

/**
 * The replay of an exported `ClearToolUsesEdit`: LangChain's `contextEditingMiddleware` before every model call of a
 * `createAgent` agent, with its default counter. The middleware edits the agent state's own message list, so a clear
 * persists: the handler edits the prompt it is given (the replay keeps what it returns) and each later trigger is
 * measured on the history as already cleared.
 */
export function langChainContextEditing(edit: LangChainClearToolUses, tok: Tokenizer): CompactionHandler {
  const cleared = new WeakSet<Message>();
  return (request) => {
    const out = applyLangChainClearToolUses(request.messages, edit, cleared);
    if (out === request.messages) return { messages: out, tokens: request.tokens };
    let tokens = request.tokens;
    const before = new Set(request.messages);
    const after = new Set(out);
    for (const m of request.messages) if (!after.has(m)) tokens -= totalOf(countMessage(m, tok));
    for (const m of out) if (!before.has(m)) tokens += totalOf(countMessage(m, tok));
    return { messages: out, tokens };
  };
}
