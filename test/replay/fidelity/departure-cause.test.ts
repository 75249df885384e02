import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/model/message.js';
import { DEPARTURE_DETECTORS, type DepartureContext, departureCauses } from '../../../src/replay/fidelity/departure-cause.js';

// A departing call's neighbourhood, built by hand: the previous call held against the record (message 1), the messages
// since, and the departing call's reply (the last message). Each test adds the one thing its cause looks for.
const reply = (extra: Partial<Message> = {}): Message =>
  ({ role: 'assistant', content: 'done', model: 'claude-sonnet-4-5', usage: { input_tokens: 3, cache_read_input_tokens: 20_000 }, ...extra }) as Message;
const user = (extra: Partial<Message> = {}): Message => ({ role: 'user', content: 'go on', ...extra }) as Message;

function context(messages: Message[], over: Partial<DepartureContext> = {}): DepartureContext {
  return {
    messages,
    from: 1,
    to: messages.length - 1,
    call: { recorded: 20_003, replayed: 30_000, unlogged: 0 },
    previous: { recorded: 18_000, replayed: 18_100, unlogged: 0 },
    unloggedAt: () => 0,
    basePrompt: 12_000,
    ...over,
  };
}

const plain = () => [user(), reply(), user(), reply()];

describe('what was there at a departing call', () => {
  it('is an unexplained jump when no detector finds anything', () => {
    expect(departureCauses(context(plain()))).toEqual(['unexplained-jump']);
  });

  it('finds a synthetic reply the reader marked (is_synthetic), the departing call itself or one since the call before', () => {
    const synthetic = reply({
      model: '<synthetic>',
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 },
      content: 'No response requested.',
      is_synthetic: true,
    });
    expect(departureCauses(context([user(), reply(), user(), synthetic]))).toEqual(['synthetic-reply']);
    expect(departureCauses(context([user(), reply(), synthetic, user(), reply()]))).toEqual(['synthetic-reply']);
    // A reply the reader did not mark is no synthetic one, whatever model it names.
    expect(departureCauses(context([user(), reply(), user(), reply({ model: '<synthetic>' })]))).toEqual(['unexplained-jump']);
  });

  it('finds unlogged content: placed by the token scale since the call before, held by a message, or carried where the record fell', () => {
    const placed = departureCauses(context(plain(), { unloggedAt: (i) => (i === 2 ? 6_000 : 0) }));
    expect(placed).toEqual(['unlogged-content']);
    // Placed before the previous call: not this interval's.
    expect(departureCauses(context(plain(), { unloggedAt: (i) => (i === 0 ? 6_000 : 0) }))).toEqual(['unexplained-jump']);
    const toolReference = { role: 'tool', tool_call_id: 't1', content: [{ type: 'text', text: '{"type":"tool_reference","tool_name":"deploy"}' }] } as Message;
    expect(departureCauses(context([user(), reply(), toolReference, reply()]))).toEqual(['unlogged-content']);
    const takenBack = context(plain(), { call: { recorded: 15_000, replayed: 24_000, unlogged: 8_000 } });
    expect(departureCauses(takenBack)).toEqual(['unlogged-content']);
    // Carried while the record grew: the tokens are still there, so they do not explain the gap.
    expect(departureCauses(context(plain(), { call: { recorded: 19_000, replayed: 24_000, unlogged: 8_000 } }))).toEqual(['unexplained-jump']);
  });

  it("finds the source's own compaction summary since the call before", () => {
    expect(departureCauses(context([user(), reply(), user({ is_compact_summary: true }), reply()]))).toEqual(['source-compaction']);
  });

  it('finds a branch switch: the departing call is on another branch (thread) than the call before', () => {
    expect(departureCauses(context([user(), reply(), user({ thread: 1 }), reply({ thread: 1 })]))).toEqual(['branch-switch']);
    // Both calls on the same branch of a forked session: no switch between them.
    expect(departureCauses(context([user({ thread: 1 }), reply({ thread: 1 }), user({ thread: 1 }), reply({ thread: 1 })]))).toEqual(['unexplained-jump']);
  });

  it('finds a resume rebuild the reader marked (resume_rebuild)', () => {
    expect(departureCauses(context([user(), reply(), user({ resume_rebuild: true }), reply()]))).toEqual(['resume-rebuild']);
  });

  it('finds the first call replayed without the unrecorded system prompt, and not with it', () => {
    expect(departureCauses(context(plain(), { from: -1, previous: undefined, basePrompt: 0 }))).toEqual(['first-call']);
    expect(departureCauses(context(plain(), { from: -1, previous: undefined }))).toEqual(['unexplained-jump']);
  });

  it('reports every cause found, in the detectors order', () => {
    const both = [user(), reply(), user({ is_compact_summary: true }), user({ thread: 2 }), reply({ thread: 2 })];
    expect(departureCauses(context(both))).toEqual(['source-compaction', 'branch-switch']);
    expect(DEPARTURE_DETECTORS.map((d) => d.cause)).toEqual([
      'synthetic-reply',
      'unlogged-content',
      'source-compaction',
      'branch-switch',
      'resume-rebuild',
      'first-call',
    ]);
  });
});
