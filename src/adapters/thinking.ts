import type { AssistantMessage } from '../model/message.js';

/**
 * Thinking blocks without text: Anthropic's signature-only `thinking` blocks, which the AI SDK gives as empty
 * `reasoning` parts. They are no reasoning text to join (never "\n\nabc"); their number is kept, as the Claude Code
 * reader keeps it (`thinking_blocks_without_text`), so a round trip gives them back.
 */
export function withoutText(a: AssistantMessage, count: number): void {
  if (count > 0) a.thinking_blocks_without_text = count;
}

export function thinkingWithoutText(a: AssistantMessage): number {
  const n = a.thinking_blocks_without_text;
  return typeof n === 'number' && n > 0 ? n : 0;
}
