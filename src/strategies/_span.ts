import { type RefLookup, compactionMessage, originalsOf } from '../model/compaction-marker.js';
import { type Message, isTool } from '../model/message.js';
import { type KeepOptions, protectedRange } from './boundaries.js';

/**
 * The messages a checkpoint or summary replaces: [from, to), except `keep`, the last user request when it lies inside
 * (-1 otherwise), which stays verbatim. The replacement then goes right after that request, as an `assistant` message,
 * so the request stays the last user message and the older part of the current turn can be compacted.
 */
export interface ReplaceSpan {
  from: number;
  to: number;
  keep: number;
}

/**
 * The span between the kept head and the protected tail (see `protectedRange`), never starting with a tool result,
 * and starting after any earlier checkpoint or summary whose originals cannot be looked up (its facts would be lost).
 * Undefined when fewer than two messages would be replaced: one message is not worth replacing, and this keeps the
 * strategies idempotent (their own message is then alone in the span).
 */
export function replaceableSpan(messages: readonly Message[], options: KeepOptions, lookup: RefLookup): ReplaceSpan | undefined {
  const { headEnd, tailStart, lastRequest } = protectedRange(messages, options);
  let from = headEnd;
  const to = tailStart;
  for (let i = from; i < to; i++) {
    if (i === lastRequest) continue;
    const marker = compactionMessage(messages[i]);
    if (marker && (marker.ref === undefined || originalsOf(marker.ref, lookup) === undefined)) from = i + 1;
  }
  while (from < to && isTool(messages[from])) from++;
  const keep = lastRequest >= from && lastRequest < to ? lastRequest : -1;
  if (keep === from) from++;
  const count = to - from - (keep >= from ? 1 : 0);
  return count >= 2 ? { from, to, keep: keep >= from ? keep : -1 } : undefined;
}

/** The messages the span replaces, in order (the kept request left out). */
export function replacedMessages(messages: readonly Message[], span: ReplaceSpan): Message[] {
  const out: Message[] = [];
  for (let i = span.from; i < span.to; i++) if (i !== span.keep) out.push(messages[i]);
  return out;
}

/**
 * The role of the replacing message: `user` between the head and a later request (every chat API accepts a user
 * message there, some refuse a system message mid-conversation); `assistant` once it follows the last request, so that
 * request stays the last.
 */
export function replacementRole(span: ReplaceSpan, lastRequest: number): 'user' | 'assistant' {
  return span.keep >= 0 || lastRequest < span.from ? 'assistant' : 'user';
}

/** The transcript's messages with the span replaced by `replacement` (placed after the kept request, if any). */
export function withReplacement(messages: readonly Message[], span: ReplaceSpan, replacement: Message): Message[] {
  const middle = span.keep >= 0 ? [messages[span.keep], replacement] : [replacement];
  return [...messages.slice(0, span.from), ...middle, ...messages.slice(span.to)];
}
