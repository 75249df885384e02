import type { Message } from './message.js';

/**
 * The Responses API sends a turn's reasoning items again on every request of that turn, and leaves them out of the
 * prompt once a user message has started the next turn. A transcript whose reader says so (`metadata.reasoningScope`
 * `turn`, Codex) is replayed that way: at each user message, earlier replies lose their reasoning.
 */
export const keepsReasoningPerTurn = (metadata: Record<string, unknown> | undefined): boolean => metadata?.reasoningScope === 'turn';

const stripped = new WeakMap<Message, Message>();
const originals = new WeakMap<Message, Message>();

/** The reply without its reasoning: one object per reply, so prompts that hold it share a cached prefix. */
export function withoutReasoning(m: Message): Message {
  if (m.role !== 'assistant' || m.reasoning_content === undefined) return m;
  let copy = stripped.get(m);
  if (!copy) {
    const { reasoning_content: _dropped, ...rest } = m;
    copy = rest as Message;
    stripped.set(m, copy);
    originals.set(copy, m);
  }
  return copy;
}

/** The transcript's message a prompt's message stands for (the reply itself for a reply replayed without reasoning). */
export const originalOf = (m: Message): Message => originals.get(m) ?? m;
