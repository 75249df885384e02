import { describe, expect, it } from 'vitest';
import { findViolations } from '../../src/model/validity.js';
import { stripReasoning } from '../../src/strategies/strip-reasoning.js';
import { assistant, call, expectIdempotent, result, run, sys, transcript, user, LAST_TURN } from '../helpers/transcript-kit.js';

const input = () =>
  transcript([
    sys('rules'),
    user('first'),
    assistant('a1', { reasoning_content: 'think 1' }),
    user('second'),
    assistant(null, { reasoning_content: 'think 2' }),
    assistant(null, { reasoning_content: 'think 3', tool_calls: [call('c1', 'Read')] }),
    result('c1', 'file'),
    assistant(null, { redacted_thinking_blocks: 2 } as never),
    user('third'),
    assistant('a3', { reasoning_content: 'think 4' }),
  ]);

describe('strip-reasoning', () => {
  it('accepts {} with the default tail budget and rejects unknown options', () => {
    expect(stripReasoning.config.parse({})).toEqual({ keepLast: 0, keepMessages: 10, keepResults: 10 });
    expect(stripReasoning.config.safeParse({ keepRecent: 1 }).success).toBe(false);
  });

  it('removes reasoning between the first user message and the last turn, and drops assistants left empty', () => {
    const before = input();
    const r = run(stripReasoning, before, LAST_TURN);
    expect(r.transcript).toEqual(
      transcript([
        sys('rules'),
        user('first'),
        assistant('a1'),
        user('second'),
        assistant(null, { tool_calls: [call('c1', 'Read')] }),
        result('c1', 'file'),
        user('third'),
        assistant('a3', { reasoning_content: 'think 4' }),
      ]),
    );
    expect(r).toMatchObject({ messagesChanged: 2, messagesRemoved: 2, details: { reasoningRemoved: 4 } });
    for (const i of [0, 1, 3]) expect(r.transcript.messages[i]).toBe(before.messages[i]);
    expect(r.transcript.messages.at(-1)).toBe(before.messages.at(-1));
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expectIdempotent(stripReasoning, r.transcript, LAST_TURN);
  });

  it('keeps the last two turns with keepLast 2', () => {
    const before = input();
    const r = run(stripReasoning, before, { ...LAST_TURN, keepLast: 2 });
    expect(r.transcript.messages.slice(3)).toEqual(before.messages.slice(3));
    expect(r.transcript.messages[2]).toEqual(assistant('a1'));
  });

  it('strips everything with keepLast 0 and keepFirst 0, and nothing before keepFirst', () => {
    const all = run(stripReasoning, input(), { ...LAST_TURN, keepLast: 0, keepFirst: 0 });
    expect(all.transcript.messages.some((m) => 'reasoning_content' in m)).toBe(false);
    const head = run(stripReasoning, input(), { ...LAST_TURN, keepLast: 0, keepFirst: 3 });
    expect(head.transcript.messages[2]).toEqual(assistant('a1', { reasoning_content: 'think 1' }));
    expect(head.transcript.messages.at(-1)).toEqual(assistant('a3'));
  });

  it('returns the same transcript when there is no reasoning', () => {
    const plain = transcript([user('a'), assistant('b'), user('c'), assistant('d')]);
    expect(run(stripReasoning, plain, LAST_TURN).transcript).toBe(plain);
  });
});
