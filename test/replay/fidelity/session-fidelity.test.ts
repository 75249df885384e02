import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/model/message.js';
import { fidelityLine, fidelitySummary } from '../../../src/replay/fidelity/fidelity-summary.js';
import { type FidelityCall, sessionFidelity } from '../../../src/replay/fidelity/session-fidelity.js';

// Sessions built by hand: each reply records its whole input as cache reads (Anthropic's field names), and each
// replayed call is given as the replay reports it (prompt, reads, writes, unlogged tokens, input-side cost).
const reply = (input: number, model = 'claude-sonnet-4-5'): Message =>
  ({
    role: 'assistant',
    content: 'ok',
    model,
    usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: input, output_tokens: 5 },
  }) as Message;
const synthetic = (): Message =>
  ({
    role: 'assistant',
    content: 'No response requested.',
    model: '<synthetic>',
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 },
    is_synthetic: true,
  }) as Message;
const user = (): Message => ({ role: 'user', content: 'next' });
const call = (messageIndex: number, prompt: number, unlogged = 0): FidelityCall => ({
  messageIndex,
  prompt,
  read: prompt,
  written: 0,
  unlogged,
  inputCost: prompt / 1e6,
});
const inputs = { policy: 'source', recordedInputCost: () => 0.01, unloggedAt: () => 0, basePrompt: 1_000 };

describe('one session held against its record', () => {
  it('counts a call billed for a synthetic reply, and departs there: its record is 0', () => {
    const messages = [user(), reply(10_000), user(), synthetic(), user(), reply(11_000)];
    const f = sessionFidelity({ id: 's', messages }, [call(1, 10_000), call(3, 10_500), call(5, 11_000)], inputs)!;
    expect(f.syntheticCalls).toBe(1);
    expect(f.calls).toEqual({ recorded: 2, replayed: 3 });
    expect(f.departure).toMatchObject({ call: 2, messageIndex: 3, recorded: 0, replayed: 10_500, causes: ['synthetic-reply'] });
    expect(f.input).toEqual({ recorded: 21_000, replayed: 31_500, offBy: 0.5 });
  });

  it('flags a session whose billed unlogged tokens pass 10% of its recorded input, and not one at 10%', () => {
    const messages = [user(), reply(10_000), user(), reply(10_000)];
    const over = sessionFidelity({ id: 's', messages }, [call(1, 10_000), call(3, 10_000, 2_001)], inputs)!;
    expect(over.unlogged).toEqual({ tokens: 2_001, share: 2_001 / 20_000 });
    expect(over.unloggedFlag).toBe(true);
    const at = sessionFidelity({ id: 's', messages }, [call(1, 10_000), call(3, 10_000, 2_000)], inputs)!;
    expect(at.unloggedFlag).toBe(false);
    expect(at.departure).toBeUndefined();
  });

  it('has nothing to say about a session without recorded usage', () => {
    const messages: Message[] = [user(), { role: 'assistant', content: 'ok' }];
    expect(sessionFidelity({ id: 's', messages }, [call(1, 500)], inputs)).toBeUndefined();
  });
});

describe("the archive's summary", () => {
  it('sums the sessions, counts those within ±5% of their input, those with a departing call and those flagged', () => {
    const a = sessionFidelity({ id: 'a', messages: [user(), reply(10_000)] }, [call(1, 10_400)], inputs)!;
    const b = sessionFidelity({ id: 'b', messages: [user(), reply(10_000)] }, [call(1, 12_000, 1_500)], inputs)!;
    const s = fidelitySummary([a, b])!;
    expect(s).toMatchObject({ sessions: 2, withinInput: 1, departing: 1, flagged: 1, syntheticCalls: 0 });
    expect(s.input).toMatchObject({ recorded: 20_000, replayed: 22_400 });
    expect(s.input.offBy).toBeCloseTo(0.12, 12);
    expect(fidelityLine(s)).toBe(
      "The 'source' replay against the record of 2 sessions: input +12.0%, input-side cost with caching +12.0%, cache writes –; " +
        '1 of 2 sessions within ±5% of their recorded input, 1 with a call off by more than 10%, 1 flagged (unlogged content above 10% of input); ' +
        '0 calls billed for synthetic replies.',
    );
    expect(fidelitySummary([])).toBeUndefined();
  });
});
