import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelay } from '../../src/llm/backoff.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { isRetryable } from '../../src/llm/failure.js';
import { parseDuration, parseRateLimitHeaders, parseRetryAfter } from '../../src/llm/rate-limit-headers.js';

const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

describe('rate-limit headers', () => {
  it('parses the reset durations OpenAI sends', () => {
    expect(parseDuration('1s')).toBe(1000);
    expect(parseDuration('6m0s')).toBe(360_000);
    expect(parseDuration('20ms')).toBe(20);
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseDuration('0.5s')).toBe(500);
    expect(parseDuration('2')).toBe(2000);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('5x')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });

  it('reads limits, remaining budgets and resets', () => {
    const s = parseRateLimitHeaders(
      headers({
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '499',
        'x-ratelimit-reset-requests': '120ms',
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '29000',
        'x-ratelimit-reset-tokens': '6m0s',
      }),
    );
    expect(s).toEqual({ limitRequests: 500, remainingRequests: 499, resetRequestsMs: 120, limitTokens: 30000, remainingTokens: 29000, resetTokensMs: 360_000 });
    expect(parseRateLimitHeaders(headers({}))).toEqual({});
  });

  it('reads Retry-After as seconds or as an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(headers({ 'retry-after': '7', 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'whenever' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });
});

describe('retry delay', () => {
  const random = seededRandom(1);

  it('honours a server hint under 60 s exactly', () => {
    expect(retryDelay(1, 7000, random)).toEqual({ ms: 7000, source: 'server', capped: false });
  });

  it('caps a hint over 60 s (Retry-After: 120, or a date two minutes away) at 60 s', () => {
    expect(retryDelay(1, 120_000, random)).toEqual({ ms: MAX_RETRY_DELAY_MS, source: 'server', capped: true });
    expect(MAX_RETRY_DELAY_MS).toBe(60_000);
  });

  it('backs off exponentially with at most 25 percent jitter when there is no hint (or a date in the past)', () => {
    for (const [retry, base] of [
      [1, 500],
      [2, 1000],
      [3, 2000],
      [5, 8000],
      [9, 8000],
    ] as const) {
      const d = retryDelay(retry, undefined, random);
      expect(d.source).toBe('backoff');
      expect(d.ms).toBeLessThanOrEqual(base);
      expect(d.ms).toBeGreaterThanOrEqual(base * 0.75);
    }
    expect(retryDelay(1, -5000, random).source).toBe('backoff');
  });

  it('gives the same jitter for the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect([1, 2, 3].map((r) => retryDelay(r, undefined, a).ms)).toEqual([1, 2, 3].map((r) => retryDelay(r, undefined, b).ms));
  });

  it('retries 408, 409, 429, 5xx and connection failures only', () => {
    expect(['rate_limited', 'server_error', 'timeout', 'conflict', 'connection'].every((c) => isRetryable(c as never))).toBe(true);
    expect(
      ['context_length_exceeded', 'bad_request', 'auth', 'not_found', 'quota_exceeded', 'bad_response', 'exceeds_tpm', 'aborted'].some((c) =>
        isRetryable(c as never),
      ),
    ).toBe(false);
  });
});
