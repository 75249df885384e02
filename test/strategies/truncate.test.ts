import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { refOf } from '../../src/refs/ref-store.js';
import { truncate, truncationMarkerText } from '../../src/strategies/truncate.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { assistant, call, expectIdempotent, expectInvariants, makeContext, result, run, sys, transcript, user } from '../helpers/transcript-kit.js';

const tok = getTokenizer('o200k_base');
const bulk = (i: number) => `${i}: ${'lorem ipsum dolor sit amet '.repeat(40)}`;

/** Ten turns, each a request, one tool call with a bulky result, and an answer. */
function turns(): Message[] {
  const out: Message[] = [sys('system prompt')];
  for (let i = 0; i < 10; i++) {
    out.push(
      user(`request ${i}`),
      assistant(null, { tool_calls: [call(`c${i}`, 'Bash', { command: `step ${i}` })] }),
      result(`c${i}`, bulk(i)),
      assistant(`answer ${i}`),
    );
  }
  return out;
}

const tokens = (messages: Message[]) => countTranscript(transcript(messages), tok).total;

describe('truncate', () => {
  it('leaves a transcript within the budget unchanged', () => {
    const input = transcript(turns());
    expect(run(truncate, input, { budget: tokens(turns()) }).transcript).toBe(input);
  });

  it('keeps the head, a marker with a ref, and the longest suffix that fits, cut before a non-tool message', () => {
    const input = transcript(turns());
    // Room for the head, the marker and the last two turns (8 messages), not even for the answer before them.
    const lastTwo = input.messages.slice(33);
    const head = input.messages.slice(0, 2);
    const marker = assistant(truncationMarkerText(31, refOf(JSON.stringify(input.messages.slice(2, 33)))));
    const budget = tokens([...head, marker, ...lastTwo]);
    const ctx = makeContext();
    const r = run(truncate, input, { budget }, ctx);
    expect(r.transcript.messages).toEqual([...head, marker, ...lastTwo]);
    expect(marker.content).toMatch(/^\[CONTEXT REDUCED - emergency truncation: 31 messages removed\] \(ref: [0-9a-f]{16}\)$/);
    r.transcript.messages.slice(3).forEach((m, i) => expect(m).toBe(lastTwo[i]));
    expect(ctx.refs?.get(refOf(JSON.stringify(input.messages.slice(2, 33))))).toBe(JSON.stringify(input.messages.slice(2, 33)));
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 31, details: { truncations: 1 } });
    expect(countTranscript(r.transcript, tok).total).toBeLessThanOrEqual(budget);
    expectInvariants(input, r.transcript);
    expectIdempotent(truncate, r.transcript, { budget });
  });

  it('never separates a call from its results', () => {
    const input = transcript(turns());
    let truncated = 0;
    for (let budget = 100; budget < tokens(turns()); budget += 97) {
      const r = run(truncate, input, { budget });
      expectInvariants(input, r.transcript);
      if (r.transcript === input) continue;
      truncated++;
      expect(r.transcript.messages[2].content).toMatch(/^\[CONTEXT REDUCED/);
      expect(r.transcript.messages[3].role).not.toBe('tool');
    }
    expect(truncated).toBeGreaterThan(10);
  });

  it('removes nothing, with a note, when the last user request and what follows are over the budget alone', () => {
    const input = transcript(turns());
    const r = run(truncate, input, { budget: 50 });
    expect(r.transcript).toBe(input);
    expect(r.messagesRemoved).toBe(0);
    const least = tokens(input.messages.slice(0, 2)) + tokens(input.messages.slice(37));
    expect(r.notes).toEqual([
      `cannot fit the budget of 50 tokens: the kept head and the messages from the last user request on are ${least} tokens; nothing removed`,
    ]);
  });

  it('decides on messages alone whether anything can fit, so pruning tool definitions later changes nothing', () => {
    const tools = Array.from({ length: 40 }, (_, i) => ({
      type: 'function' as const,
      function: { name: `tool_${i}`, description: 'an unused tool '.repeat(20) },
    }));
    const input = transcript(turns(), { tools });
    const least = tokens(input.messages.slice(0, 2)) + tokens(input.messages.slice(37));
    const budget = least + 40;
    // Over the budget with the definitions, under it without: cut as far as allowed, which a second pass keeps.
    const r = run(truncate, input, { budget });
    expect(r.transcript.messages.slice(3)).toEqual(input.messages.slice(37));
    const pruned = { ...r.transcript, tools: [] };
    expect(run(truncate, pruned, { budget }).transcript).toBe(pruned);
  });

  it('cuts right before the last user request when only that suffix fits', () => {
    const input = transcript(turns());
    const marker = assistant(truncationMarkerText(35, refOf(JSON.stringify(input.messages.slice(2, 37)))));
    const budget = tokens(input.messages.slice(0, 2)) + tokens([marker]) + tokens(input.messages.slice(37));
    const r = run(truncate, input, { budget });
    expect(r.transcript.messages.slice(3)).toEqual(input.messages.slice(37));
    expect(r.transcript.messages[2]).toEqual(marker);
    expectInvariants(input, r.transcript);
    // Once truncated as far as allowed, truncating again changes nothing, and the marker counts carry over.
    expectIdempotent(truncate, r.transcript, { budget });
  });

  it('counts messages an earlier marker stood for', () => {
    const input = transcript(turns());
    const first = run(truncate, input, { budget: 2500 }).transcript;
    const firstRemoved = 41 - first.messages.length + 1;
    const second = run(truncate, first, { budget: 1200 }, makeContext({ refs: false })).transcript;
    const secondRemoved = first.messages.length - second.messages.length + 1;
    expect(second.messages[2]).toEqual(assistant(truncationMarkerText(firstRemoved + secondRemoved - 1, undefined)));
  });

  it('keeps the results of a call made in the kept head', () => {
    const messages: Message[] = [user('go'), assistant(null, { tool_calls: [call('h', 'Bash', { command: 'x' })] }), result('h', 'ok'), ...turns().slice(1)];
    const input = transcript(messages);
    const r = run(truncate, input, { keepFirst: 2, budget: 1000 });
    expect(r.transcript.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
    expectInvariants(input, r.transcript);
  });

  it('defaults the budget to 90% of the window', () => {
    const input = transcript(turns());
    const total = tokens(turns());
    expect(run(truncate, input, { window: Math.ceil(total / 0.9) + 1 }).transcript).toBe(input);
    const r = run(truncate, input, { window: Math.floor(total / 0.9) - 200 });
    expect(countTranscript(r.transcript, tok).total).toBeLessThanOrEqual(Math.floor(0.9 * (Math.floor(total / 0.9) - 200)));
  });
});
