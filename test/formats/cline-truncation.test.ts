import { describe, expect, it } from 'vitest';
import { UNKNOWN_WINDOW, maxAllowedSize, nextTruncationRange, windowOfModel } from '../../src/formats/_cline-truncation.js';

// cline ContextManager.ts getNextTruncationRange and context-window-utils.ts getContextWindowInfo (1f31738b32~1); the
// legacy rule from src/core/sliding-window/index.ts (ac53dbb122).
const roles = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant'));

describe("Cline's truncation rule", () => {
  it('gives maxAllowedSize as getContextWindowInfo does', () => {
    expect([64_000, 128_000, 200_000, 8192, 1_000_000].map(maxAllowedSize)).toEqual([37_000, 98_000, 160_000, 8192 * 0.8, 960_000]);
    expect(UNKNOWN_WINDOW).toBe(128_000);
    expect(windowOfModel('gpt-4')).toBe(8192);
    expect(windowOfModel('openai/gpt-4o')).toBe(128_000);
    expect(windowOfModel('no-such-model')).toBeUndefined();
  });

  it('keeps messages 0 and 1, removes an even number ending on an assistant message, and grows the range', () => {
    // 21 messages (the last a user message): half of the 19 after the head is 8 messages, [2, 9].
    expect(nextTruncationRange(roles(21), 21, undefined, 'half', false)).toEqual([2, 9]);
    // Three quarters of the 19: 14 messages, [2, 15].
    expect(nextTruncationRange(roles(21), 21, undefined, 'quarter', false)).toEqual([2, 15]);
    // The next cut removes half of what follows the range in force.
    expect(nextTruncationRange(roles(31), 31, [2, 9], 'half', false)).toEqual([2, 19]);
  });

  it('before April 2025 kept message 0 alone and ended a range on a user message', () => {
    expect(nextTruncationRange(roles(21), 21, undefined, 'half', true)).toEqual([1, 10]);
    expect(nextTruncationRange(roles(21), 21, undefined, 'quarter', true)).toEqual([1, 12]);
  });
});
