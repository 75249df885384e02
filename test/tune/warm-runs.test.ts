import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { WarmRuns } from '../../src/tune/warm-runs.js';
import { assistant, user } from '../helpers/transcript-kit.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
/** A session whose replies come at these minutes. */
const session = (minutes: number[]) => ({
  id: 's',
  messages: minutes.flatMap((m, i): Message[] => [
    { ...user(`q${i}`), timestamp: at(m) },
    { ...assistant(`a${i}`), timestamp: at(m) },
  ]),
});

describe('WarmRuns', () => {
  it('counts the calls expected after a call before a gap over the TTL', () => {
    const runs = new WarmRuns(10);
    // Runs of 3 and 2 calls at the 5-minute TTL: after-calls 2 + 1 + 0 and 1 + 0, 0.8 a call, counted as at least 1.
    runs.add(session([0, 1, 2, 30, 31]), 'anthropic-5m');
    expect(runs.expectedCalls('anthropic-5m')).toBe(1);
    const long = new WarmRuns(10);
    long.add(session(Array.from({ length: 11 }, (_, i) => i)), 'anthropic-5m');
    // One run of 11 calls: (10 + 9 + ... + 0) / 11 = 5.
    expect(long.expectedCalls('anthropic-5m')).toBe(5);
    // The hour-long TTL joins what the 5-minute one splits.
    const hour = new WarmRuns(10);
    hour.add(session([0, 1, 2, 30, 31]), 'anthropic-1h');
    expect(hour.expectedCalls('anthropic-1h')).toBe(2);
  });
});
