import { describe, expect, it } from 'vitest';
import { CACHE_RULES, type CacheModelName } from '../../../src/provider/cache-rules.js';
import { type CacheOutcome, PromptCache } from '../../../src/replay/billing/prompt-cache.js';

/** A message of `tokens` tokens and `blocks` content blocks; identity is what the cache compares. */
interface Msg {
  tokens: number;
  blocks: number;
}
const msg = (tokens: number, blocks = 1): Msg => ({ tokens, blocks });

const SECOND = 1000;

/**
 * Calls a fresh cache of `model` with each prompt at its time (seconds), `base` tokens of system prompt and tools, and
 * as many of them held warm from outside the conversation as the optional third item says.
 */
function bill(model: CacheModelName, base: number, calls: ([number, Msg[]] | [number, Msg[], number])[]): CacheOutcome[] {
  const cache = new PromptCache(CACHE_RULES[model]);
  return calls.map(([at, messages, warmBase]) =>
    cache.call({ messages, tokensOf: (i) => messages[i].tokens, blocksOf: (i) => messages[i].blocks, baseTokens: base, atMs: at * SECOND, warmBase }),
  );
}

describe('anthropic-5m and anthropic-1h: breakpoints on the system prompt and the last message', () => {
  const [a, b, c, d, e] = [msg(100), msg(200), msg(300), msg(50), msg(10)];
  const calls: [number, Msg[]][] = [
    [0, [a]],
    [60, [a, b, c]],
    [60 + 301, [a, b, c, d]],
    [60 + 301 + 299, [a, b, c, d, e]],
  ];

  it('reads the previous call whole, and loses everything after five minutes without a call', () => {
    expect(bill('anthropic-5m', 2000, calls)).toEqual([
      { read: 0, written: 2100, uncached: 0 },
      { read: 2100, written: 500, uncached: 0 },
      // 301 s after the last use: the system prompt's entry expired as well.
      { read: 0, written: 2650, uncached: 0 },
      // 299 s: still alive, and the read refreshed it.
      { read: 2650, written: 10, uncached: 0 },
    ]);
  });

  it('keeps the entries over the same gap with the 1-hour TTL', () => {
    expect(bill('anthropic-1h', 2000, calls).map((o) => o.read)).toEqual([0, 2100, 2600, 2650]);
  });

  it('neither writes nor reads a prompt below 1,024 tokens', () => {
    expect(
      bill('anthropic-5m', 0, [
        [0, [msg(500)]],
        [10, [msg(600)]],
      ]),
    ).toEqual([
      { read: 0, written: 0, uncached: 500 },
      { read: 0, written: 0, uncached: 600 },
    ]);
    const x = msg(1000);
    const y = msg(100);
    expect(
      bill('anthropic-5m', 0, [
        [0, [x]],
        [10, [x, y]],
        [20, [x, y, msg(5)]],
      ]),
    ).toEqual([
      { read: 0, written: 0, uncached: 1000 },
      { read: 0, written: 1100, uncached: 0 },
      { read: 1100, written: 5, uncached: 0 },
    ]);
  });

  it('finds an earlier entry only within 20 content blocks of the last breakpoint, else the system prompt', () => {
    const a0 = msg(100);
    const near = Array.from({ length: 20 }, () => msg(10));
    const far = Array.from({ length: 21 }, () => msg(10));
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a0]],
        [10, [a0, ...near]],
      ])[1],
    ).toEqual({ read: 2100, written: 200, uncached: 0 });
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a0]],
        [10, [a0, ...far]],
      ])[1],
    ).toEqual({ read: 2000, written: 310, uncached: 0 });
    // A message of several blocks (a reply with tool calls) counts them all.
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a0]],
        [10, [a0, msg(10, 12), msg(10, 9)]],
      ])[1],
    ).toEqual({ read: 2000, written: 120, uncached: 0 });
  });

  it('after a compaction that rewrites an early message, reads only the system prompt (no breakpoint in between)', () => {
    const [p, q, r, s] = [msg(100), msg(200), msg(300), msg(40)];
    const out = bill('anthropic-5m', 2000, [
      [0, [p, q]],
      [10, [p, q, r]],
      [20, [p, s]],
    ]);
    expect(out[2]).toEqual({ read: 2000, written: 140, uncached: 0 });
  });
});

describe('a base prefix held warm from outside the conversation (another session sent the same system prompt and tools)', () => {
  const [a, b] = [msg(100), msg(200)];

  it('is read at a first call, whole or in part, the rest written; the entry it refreshes serves the next call', () => {
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a], 2000],
        [10, [a, b]],
      ]),
    ).toEqual([
      { read: 2000, written: 100, uncached: 0 },
      { read: 2100, written: 200, uncached: 0 },
    ]);
    expect(bill('anthropic-5m', 2000, [[0, [a], 1500]])).toEqual([{ read: 1500, written: 600, uncached: 0 }]);
  });

  it('is read after a gap that expired the entries of the conversation itself, and never beyond the base prefix', () => {
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a]],
        [400, [a, b], 50_000],
      ]),
    ).toEqual([
      { read: 0, written: 2100, uncached: 0 },
      { read: 2000, written: 300, uncached: 0 },
    ]);
  });

  it('adds nothing where an entry of the conversation itself is longer, and counts for the openai prefix rules too', () => {
    expect(
      bill('anthropic-5m', 2000, [
        [0, [a]],
        [10, [a, b], 2000],
      ])[1],
    ).toEqual({ read: 2100, written: 200, uncached: 0 });
    // 1500 - 1024 = 476 = 3 * 128 + 92: 1408 tokens read, no write.
    expect(bill('openai', 1600, [[0, [a], 1500]])).toEqual([{ read: 1408, written: 0, uncached: 292 }]);
  });
});

describe('a recorded read that stops inside the base prefix (the provider read no more: the base changed there)', () => {
  const [a, b, c] = [msg(100), msg(200), msg(300)];
  const call = (cache: PromptCache, at: number, messages: Msg[], baseHeld?: number) =>
    cache.call({ messages, tokensOf: (i) => messages[i].tokens, blocksOf: (i) => messages[i].blocks, baseTokens: 2000, atMs: at * SECOND, baseHeld });

  it('reads that much and writes the rest, though the conversation entries were live, and the next call reads the new ones', () => {
    const cache = new PromptCache(CACHE_RULES['anthropic-5m']);
    expect(call(cache, 0, [a, b])).toEqual({ read: 0, written: 2300, uncached: 0 });
    expect(call(cache, 10, [a, b, c], 1500)).toEqual({ read: 1500, written: 1100, uncached: 0 });
    expect(call(cache, 20, [a, b, c, msg(10)], 2600)).toEqual({ read: 2600, written: 10, uncached: 0 });
  });

  it('changes nothing when the read covers the whole base', () => {
    const cache = new PromptCache(CACHE_RULES['anthropic-5m']);
    call(cache, 0, [a, b]);
    expect(call(cache, 10, [a, b, c], 2300)).toEqual({ read: 2300, written: 300, uncached: 0 });
  });
});

describe('openai: automatic prefix caching from 1,024 tokens in 128-token steps', () => {
  it('reads the longest live prefix rounded down to a 128-token step above 1,024, with no write', () => {
    const a = msg(1500);
    expect(
      bill('openai', 0, [
        [0, [a]],
        [10, [a, msg(100)]],
      ]),
    ).toEqual([
      { read: 0, written: 0, uncached: 1500 },
      // 1500 - 1024 = 476 = 3 * 128 + 92: 1024 + 384 = 1408 tokens read.
      { read: 1408, written: 0, uncached: 192 },
    ]);
  });

  it('reads a prefix shorter than the previous prompt after a compaction (every prefix is cached)', () => {
    const [p, q, r] = [msg(1100), msg(500), msg(70)];
    expect(
      bill('openai', 0, [
        [0, [p, q]],
        [10, [p, r]],
      ])[1],
    ).toEqual({ read: 1024 + 0, written: 0, uncached: 146 });
  });

  it('caches nothing below 1,024 tokens, keeps a prefix five minutes on, and forgets it after ten', () => {
    const x = msg(1000);
    expect(
      bill('openai', 0, [
        [0, [x]],
        [10, [x, msg(200)]],
      ])[1].read,
    ).toBe(0);
    const a = msg(2048);
    expect(
      bill('openai', 0, [
        [0, [a]],
        [305, [a, msg(1)]],
      ])[1].read,
    ).toBe(2048);
    expect(
      bill('openai', 0, [
        [0, [a]],
        [601, [a, msg(1)]],
      ])[1].read,
    ).toBe(0);
  });
});

describe('ideal and none', () => {
  it('ideal reads the prefix shared with the previous prompt, whatever the gap and size', () => {
    const [a, b, c] = [msg(10), msg(20), msg(30)];
    expect(
      bill('ideal', 5, [
        [0, [a]],
        [100_000, [a, b]],
        [100_001, [a, c]],
      ]),
    ).toEqual([
      { read: 0, written: 15, uncached: 0 },
      { read: 15, written: 20, uncached: 0 },
      { read: 15, written: 30, uncached: 0 },
    ]);
  });

  it('none bills every token as plain input', () => {
    const a = msg(5000);
    expect(
      bill('none', 100, [
        [0, [a]],
        [1, [a, msg(1)]],
      ]),
    ).toEqual([
      { read: 0, written: 0, uncached: 5100 },
      { read: 0, written: 0, uncached: 5101 },
    ]);
  });
});
