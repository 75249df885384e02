import { type Message, messageContent } from '../model/message.js';
import { contentText } from '../model/content.js';
import { recordedCall, timestampMs } from '../model/recorded.js';

/** Claude Code's cache lifetime unless a request asks for the hour. */
const FIVE_MINUTES_MS = 5 * 60 * 1000;

/**
 * Marks the requests Claude Code sent and the user interrupted before any reply was logged (`unrecorded_request` on the
 * `[Request interrupted by user]` message that ends them), where the record shows the request reached the provider.
 * The interrupted request held the conversation up to the marker; its usage is in no record, but it wrote the cache:
 * the next call reads more than any earlier call's prompt held, or reads the cache after a gap longer than its lifetime
 * that only the interrupted request bridges. Without the mark, a replay writes that prefix again at the next call.
 * "[Request interrupted by user for tool use]" ends a turn whose tool ran, with no request after it: never marked.
 */
export function markUnrecordedRequests(messages: Message[]): number {
  let marked = 0;
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'user' || contentText(messageContent(m)).trim() !== '[Request interrupted by user]') continue;
    const before = messages[i - 1];
    if (before === undefined || (before.role !== 'user' && before.role !== 'tool')) continue;
    const previous = lastCall(messages, i, -1);
    const next = lastCall(messages, i, 1);
    if (!next) continue;
    const read = next.call.read;
    const held = previous ? previous.call.uncached + previous.call.written + previous.call.read : 0;
    const at = timestampMs(m);
    const bridged =
      previous !== undefined &&
      at !== undefined &&
      previous.at !== undefined &&
      next.at !== undefined &&
      next.at - previous.at > FIVE_MINUTES_MS &&
      next.at - at <= FIVE_MINUTES_MS;
    if (read > held || (read > 0 && bridged)) {
      messages[i] = { ...m, unrecorded_request: true };
      marked++;
    }
  }
  return marked;
}

/** The nearest reply before (`step` -1) or after (+1) index `i` that recorded its usage, with its time. */
function lastCall(messages: readonly Message[], i: number, step: 1 | -1): { call: NonNullable<ReturnType<typeof recordedCall>>; at?: number } | undefined {
  for (let j = i + step; j >= 0 && j < messages.length; j += step) {
    const call = recordedCall(messages[j]);
    if (call) return { call, at: timestampMs(messages[j]) };
  }
  return undefined;
}
