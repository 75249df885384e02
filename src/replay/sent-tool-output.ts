import type { ContentPart } from '../model/content.js';
import type { Message } from '../model/message.js';
import { type TruncationPolicy, truncationPolicy } from '../model/recorded.js';
import type { Transcript } from '../model/transcript.js';

/**
 * A tool output as the agent sent it to the model. Codex records each tool output whole in its rollout but trims it
 * before it enters the model's history, by the turn's `truncation_policy` (`{mode: "tokens" | "bytes", limit}`) with a
 * 20% allowance for serialization: the first and last halves of the budget are kept (4 bytes a token) and a marker
 * says how much was cut (openai/codex `codex-rs/utils/output-truncation` and `codex-rs/utils/string`). The reader
 * puts the policy on each tool message; the replay bills the trimmed output.
 */
export function asSent(transcript: Transcript): Transcript {
  let changed = false;
  const messages = transcript.messages.map((m) => {
    const trimmed = trimmedOutput(m);
    if (trimmed !== m) changed = true;
    return trimmed;
  });
  return changed ? { ...transcript, messages } : transcript;
}

const BYTES_PER_TOKEN = 4;
const SERIALIZATION_ALLOWANCE = 1.2;

/** The tool message with its output trimmed by its policy; the same object when nothing is cut. */
export function trimmedOutput(m: Message): Message {
  if (m.role !== 'tool') return m;
  const policy = truncationPolicy(m);
  if (!policy) return m;
  const budget = Math.floor(policy.limit * SERIALIZATION_ALLOWANCE);
  if (typeof m.content === 'string') {
    const text = trimText(m.content, policy.mode, budget);
    return text === m.content ? m : ({ ...m, content: text } as Message);
  }
  if (!Array.isArray(m.content)) return m;
  // Text items share one budget, in order; images pass (codex-rs/utils/output-truncation).
  let remaining = budget;
  let cut = false;
  const parts: ContentPart[] = [];
  for (const part of m.content as ContentPart[]) {
    if (part.type !== 'text') {
      parts.push(part);
      continue;
    }
    const cost = policy.mode === 'bytes' ? Buffer.byteLength(part.text) : Math.ceil(Buffer.byteLength(part.text) / BYTES_PER_TOKEN);
    if (cost <= remaining) {
      parts.push(part);
      remaining -= cost;
      continue;
    }
    cut = true;
    if (remaining > 0) parts.push({ ...part, text: trimText(part.text, policy.mode, remaining) });
    remaining = 0;
  }
  return cut ? ({ ...m, content: parts } as Message) : m;
}

/** Codex's middle truncation: the first and last halves of the byte budget, on character boundaries, and a marker. */
export function trimText(text: string, mode: TruncationPolicy['mode'], budget: number): string {
  const bytes = Buffer.from(text, 'utf8');
  const maxBytes = mode === 'tokens' ? budget * BYTES_PER_TOKEN : budget;
  if (bytes.length <= maxBytes) return text;
  let left = Math.floor(maxBytes / 2);
  let right = bytes.length - (maxBytes - left);
  while (left > 0 && (bytes[left] & 0xc0) === 0x80) left--;
  while (right < bytes.length && (bytes[right] & 0xc0) === 0x80) right++;
  right = Math.max(right, left);
  const prefix = bytes.subarray(0, left).toString('utf8');
  const suffix = bytes.subarray(right).toString('utf8');
  const marker =
    mode === 'tokens'
      ? `…${Math.ceil((bytes.length - maxBytes) / BYTES_PER_TOKEN)} tokens truncated…`
      : `…${[...text].length - [...prefix].length - [...suffix].length} chars truncated…`;
  return `${prefix}${marker}${suffix}`;
}
