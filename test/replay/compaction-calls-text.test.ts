import { describe, expect, it } from 'vitest';
import { usd } from '../../src/report/format.js';
import { compactionCallsText } from '../../src/replay/compaction-calls-text.js';

const zero = { calls: 0, input: 0, output: 0, cost: 0 };

describe('the compaction calls cell', () => {
  it('is their cost and number when the totals bill them', () => {
    expect(compactionCallsText({ calls: 3, input: 900, output: 90, cost: 0.125 }, usd)).toBe('$0.13 (3)');
  });

  it('says where the calls are counted when the totals bill none of them, not a zero', () => {
    const text = compactionCallsText({ ...zero, inOwnTranscripts: { calls: 5, input: 120_000, output: 4_000, cost: 1.745 } }, usd);
    expect(text).toBe('in their own transcripts: 5 calls, $1.75');
  });

  it('names the calls counted elsewhere beside those the totals bill', () => {
    const text = compactionCallsText({ calls: 2, input: 800, output: 80, cost: 0.5, inOwnTranscripts: { calls: 1, input: 400, output: 40, cost: 0.25 } }, usd);
    expect(text).toBe('$0.50 (2); in their own transcripts: 1 call, $0.25');
  });

  it('names the source calls a strategy replaced, which nothing bills', () => {
    const text = compactionCallsText({ ...zero, replacedInOwnTranscripts: { calls: 1, input: 24_703, output: 80, cost: 0.0167 } }, usd);
    expect(text).toBe('replaced, not billed: 1 call, $0.02');
  });
});
