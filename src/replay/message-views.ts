import { isAssistant, isTool, type Message } from '../model/message.js';
import type { MessageView } from '../model/context-views.js';

/**
 * The views clients send in place of messages they logged whole (see model/context-views.ts): what a resume's rebuilt chain
 * left out, and the thinking a provider strips from earlier turns. A turn's reasoning that the Responses API drops is
 * model/turn-reasoning.ts `withoutReasoning`; a truncation's deleted range is the source policy's.
 */

/**
 * Without the tool calls whose ids are in `ids` and their results (a resume's rebuilt chain, see model/recorded.ts
 * `resumeLeftOut`): a reply keeps its other calls and its text, and goes when nothing is left of it.
 */
export function withoutCalls(ids: ReadonlySet<string>): MessageView {
  return (m) => {
    if (isTool(m)) return ids.has(m.tool_call_id) ? undefined : m;
    if (!isAssistant(m) || !m.tool_calls?.some((c) => ids.has(c.id))) return m;
    const { tool_calls: calls = [], ...rest } = m;
    const kept = calls.filter((c) => !ids.has(c.id));
    const empty = kept.length === 0 && (rest.content === null || rest.content === undefined || rest.content.length === 0) && !rest.reasoning_content;
    return empty ? undefined : kept.length > 0 ? { ...rest, tool_calls: kept } : rest;
  };
}

/** A reply without its thinking, the same object each time it is asked for (a stable prefix for the cache). */
const withoutThinking = new WeakMap<Message, Message>();

/**
 * As sent to a model that strips earlier thinking (provider/thinking-rules.ts): the replies before the last user prompt
 * of `prompt` without their reasoning, logged or not. The view of that prompt's messages.
 */
export function withoutEarlierThinking(prompt: readonly Message[]): MessageView {
  let lastPrompt = -1;
  for (let i = prompt.length - 1; i >= 0 && lastPrompt < 0; i--) if (prompt[i].role === 'user') lastPrompt = i;
  return (m, i) => {
    if (i >= lastPrompt || !isAssistant(m) || !holdsThinking(m)) return m;
    let copy = withoutThinking.get(m);
    if (!copy) {
      const { reasoning_content: _r, thinking_blocks_without_text: _t, redacted_thinking_blocks: _d, ...rest } = m;
      withoutThinking.set(m, (copy = rest));
    }
    return copy;
  };
}

const holdsThinking = (m: Message) =>
  (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') ||
  (typeof m.thinking_blocks_without_text === 'number' && m.thinking_blocks_without_text > 0) ||
  (typeof m.redacted_thinking_blocks === 'number' && m.redacted_thinking_blocks > 0);
