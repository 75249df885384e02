import { type Message, isRole, isTool } from '../model/message.js';
import { lastUserRequestIndex } from '../model/validity.js';

/** The last messages kept verbatim, as goose keeps them. */
export const DEFAULT_KEEP_MESSAGES = 10;
/** The last tool results kept verbatim (with their calls), as J-CLI keeps them. */
export const DEFAULT_KEEP_RESULTS = 10;

export interface KeepOptions {
  /** Number of last turns never modified, whole. A turn starts at a user message. @default 0 */
  keepLast: number;
  /**
   * Leading messages never modified. `undefined` means the default: the leading system/developer messages and the
   * first user message.
   */
  keepFirst?: number;
  /** The last messages never modified. @default 10 */
  keepMessages?: number;
  /** The last tool results never modified, with the calls that made them. @default 10 */
  keepResults?: number;
}

/**
 * Messages [0, headEnd) and [tailStart, length) are protected; strategies only touch [headEnd, tailStart), and never
 * the last user request (`lastRequest`, -1 when there is none), which may lie inside that range.
 */
interface ProtectedRange {
  headEnd: number;
  tailStart: number;
  lastRequest: number;
}

/** Indices of user messages, each the start of a turn. */
export function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < messages.length; i++) if (isRole(messages[i], 'user')) starts.push(i);
  return starts;
}

function defaultHeadEnd(messages: readonly Message[]): number {
  let i = 0;
  while (i < messages.length && (messages[i].role === 'system' || messages[i].role === 'developer')) i++;
  for (let j = i; j < messages.length; j++) if (isRole(messages[j], 'user')) return j + 1;
  return i;
}

/** Start of the last `count` tool results: the index of the earliest of them, or `n` when count is 0. */
function lastResultsStart(messages: readonly Message[], count: number): number {
  let start = messages.length;
  let left = count;
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    if (isTool(messages[i])) {
      start = i;
      left--;
    }
  }
  return left > 0 ? 0 : start;
}

/**
 * The protected head and tail of a transcript. The tail is a budget, not "the last turn": it holds the last
 * `keepMessages` messages, the last `keepResults` tool results and the last `keepLast` whole turns, whichever reaches
 * furthest back, and then moves back until it does not start with a tool result, so a call is never separated from its
 * result. With no user message at all, the whole transcript after the head is one turn, so keepLast >= 1 protects
 * everything. The last user request is reported separately: it stays verbatim even when it falls between head and tail.
 */
export function protectedRange(messages: readonly Message[], options: KeepOptions): ProtectedRange {
  const n = messages.length;
  const headEnd = Math.min(n, options.keepFirst ?? defaultHeadEnd(messages));
  let tailStart = Math.max(0, n - (options.keepMessages ?? DEFAULT_KEEP_MESSAGES));
  tailStart = Math.min(tailStart, lastResultsStart(messages, options.keepResults ?? DEFAULT_KEEP_RESULTS));
  if (options.keepLast > 0) {
    const starts = turnStarts(messages);
    tailStart = Math.min(tailStart, starts.length >= options.keepLast ? starts[starts.length - options.keepLast] : 0);
  }
  while (tailStart > headEnd && tailStart < n && isTool(messages[tailStart])) tailStart--;
  return { headEnd, tailStart: Math.max(headEnd, tailStart), lastRequest: lastUserRequestIndex(messages) };
}
