import { type Message, isRole } from '../model/message.js';

export interface KeepOptions {
  /** Number of last turns never modified. A turn starts at a user message. */
  keepLast: number;
  /**
   * Leading messages never modified. `undefined` means the default: the leading system/developer messages and the
   * first user message.
   */
  keepFirst?: number;
}

/** Messages [0, headEnd) and [tailStart, length) are protected; strategies only touch [headEnd, tailStart). */
export interface ProtectedRange {
  headEnd: number;
  tailStart: number;
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

/**
 * The protected head and tail of a transcript. With no user message at all, the whole transcript after the head is
 * one turn, so keepLast >= 1 protects everything.
 */
export function protectedRange(messages: readonly Message[], options: KeepOptions): ProtectedRange {
  const n = messages.length;
  const headEnd = Math.min(n, options.keepFirst ?? defaultHeadEnd(messages));
  let tailStart = n;
  if (options.keepLast > 0) {
    const starts = turnStarts(messages);
    tailStart = starts.length >= options.keepLast ? starts[starts.length - options.keepLast] : 0;
  }
  return { headEnd, tailStart: Math.max(headEnd, tailStart) };
}
