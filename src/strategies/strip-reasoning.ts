import * as z from 'zod';
import { type AssistantMessage, type Message, isAssistant } from '../model/message.js';
import { BoundaryFields } from './_config.js';
import { isEmptyAssistant, withMessages } from './_edit.js';
import { protectedRange } from './boundaries.js';
import type { Strategy } from './types.js';

const StripReasoningConfigSchema = z.strictObject({ ...BoundaryFields });

/**
 * Assistant fields that hold reasoning: the text, and the numbers of redacted (encrypted) thinking blocks and of
 * thinking blocks logged without their text that the Claude Code adapter records in their place. Thinking signatures
 * never reach the canonical model (the adapter drops them).
 */
const REASONING_FIELDS = ['reasoning_content', 'redacted_thinking_blocks', 'thinking_blocks_without_text'] as const;

function hasReasoning(m: AssistantMessage): boolean {
  for (const f of REASONING_FIELDS) if (f in m) return true;
  return false;
}

function withoutReasoning(m: AssistantMessage): AssistantMessage | undefined {
  if (!hasReasoning(m)) return undefined;
  const next: Record<string, unknown> = { ...m };
  for (const f of REASONING_FIELDS) delete next[f];
  return next as AssistantMessage;
}

/** Removes reasoning ("thinking") from assistant messages outside the kept turns. */
export const stripReasoning: Strategy<typeof StripReasoningConfigSchema> = {
  name: 'strip-reasoning',
  summary: 'remove reasoning/thinking from assistant messages outside the kept turns',
  config: StripReasoningConfigSchema,
  apply(transcript, config) {
    const messages = transcript.messages;
    const { headEnd, tailStart } = protectedRange(messages, config);
    // Copied from the first message that changes: most transcripts have no reasoning to strip.
    let out: Message[] | undefined;
    let messagesChanged = 0;
    let messagesRemoved = 0;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      const next = i >= headEnd && i < tailStart && isAssistant(m) ? withoutReasoning(m) : undefined;
      if (!next) {
        out?.push(m);
        continue;
      }
      out ??= messages.slice(0, i);
      if (isEmptyAssistant(next)) messagesRemoved++;
      else {
        messagesChanged++;
        out.push(next);
      }
    }
    const changed = messagesChanged + messagesRemoved > 0;
    return {
      transcript: changed && out ? withMessages(transcript, out) : transcript,
      messagesChanged,
      messagesRemoved,
      details: { reasoningRemoved: messagesChanged + messagesRemoved },
    };
  },
};
