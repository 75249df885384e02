import { describe, expect, it } from 'vitest';
import { seededRandom } from '../helpers/seeded-random.js';
import { RateLimiter, WINDOW_MS } from '../../src/llm/limiter.js';
import { LlmQueue, type QueueEvent } from '../../src/llm/queue.js';
import { VirtualClock } from './fake-clock.js';
import { okOutcome, scriptedClient } from './scripted-client.js';

const PROMPT = 1000;
const MAX_TOKENS = 500;
const COMPLETION = 200;

function job(i: number) {
  return { label: `job-${i}`, promptTokens: PROMPT, request: { messages: [{ role: 'user' as const, content: `q${i}` }], maxTokens: MAX_TOKENS } };
}

/** The largest count and token sum over every window [s, s + 60 s) that starts at a send. */
function worstWindow(sends: { at: number; tokens: number }[]): { requests: number; tokens: number } {
  let requests = 0;
  let tokens = 0;
  for (const s of sends) {
    const inside = sends.filter((x) => x.at >= s.at && x.at < s.at + WINDOW_MS);
    requests = Math.max(requests, inside.length);
    tokens = Math.max(
      tokens,
      inside.reduce((n, x) => n + x.tokens, 0),
    );
  }
  return { requests, tokens };
}

describe('rate limiter (fake time)', () => {
  it('holds RPM and TPM in every one-minute window over 10 simulated minutes', async () => {
    const clock = new VirtualClock();
    const rpm = 20;
    const tpm = 12_000;
    const client = scriptedClient(clock, () => ({ durationMs: 3000, outcome: okOutcome(PROMPT, COMPLETION) }));
    const limiter = new RateLimiter({ rpm, tpm, clock });
    const events: QueueEvent[] = [];
    const queue = new LlmQueue(client, limiter, {
      concurrency: 4,
      maxAttempts: 3,
      clock,
      countTokens: () => 0,
      random: seededRandom(1),
      onEvent: (e) => events.push(e),
    });
    const jobs = 100;
    const outcomes = await clock.runUntil(Promise.all(Array.from({ length: jobs }, (_, i) => queue.run(job(i)))));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const sends = events.filter((e) => e.type === 'send').map((e) => ({ at: e.at, tokens: PROMPT + COMPLETION }));
    expect(sends).toHaveLength(jobs);
    const worst = worstWindow(sends);
    console.log(
      `[limiter] ${jobs} jobs, rpm ${rpm}, tpm ${tpm}: worst 60 s window ${worst.requests} requests, ${worst.tokens} tokens; last send at ${(sends.at(-1)!.at / 60_000).toFixed(2)} min`,
    );
    expect(worst.requests).toBeLessThanOrEqual(rpm);
    expect(worst.tokens).toBeLessThanOrEqual(tpm);
    // TPM binds here: at most 10 requests of 1,200 tokens fit a minute, so 100 jobs need more than 9 minutes.
    expect(sends.at(-1)!.at).toBeGreaterThanOrEqual(9 * WINDOW_MS);
  });

  it('pauses every job, not only the refused one, for the Retry-After of a 429', async () => {
    const clock = new VirtualClock();
    // The 3rd call is refused with Retry-After 7 s; every other call succeeds after 1 s.
    const client = scriptedClient(clock, (call) =>
      call === 2
        ? { durationMs: 100, outcome: { ok: false, error: { code: 'rate_limited', status: 429, message: '429', retryAfterMs: 7000 } } }
        : { durationMs: 1000, outcome: okOutcome(PROMPT, COMPLETION) },
    );
    const limiter = new RateLimiter({ clock });
    const events: QueueEvent[] = [];
    const queue = new LlmQueue(client, limiter, {
      concurrency: 4,
      maxAttempts: 3,
      clock,
      countTokens: () => 0,
      random: seededRandom(1),
      onEvent: (e) => events.push(e),
    });
    const outcomes = await clock.runUntil(Promise.all(Array.from({ length: 8 }, (_, i) => queue.run(job(i)))));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const pause = events.find((e) => e.type === 'pause');
    expect(pause).toMatchObject({ ms: 7000, requestedMs: 7000, capped: false });
    const sendsDuringPause = events.filter((e) => e.type === 'send' && e.at > pause!.at && e.at < pause!.at + 7000);
    expect(sendsDuringPause).toEqual([]);
    // 8 jobs + 1 retry; the refused job's second attempt goes at the end of the pause.
    expect(client.calls).toHaveLength(9);
    const retried = events.find((e) => e.type === 'send' && e.job === pause!.job && e.attempt === 2);
    expect(retried!.at).toBe(pause!.at + 7000);
    expect(limiter.stats()).toMatchObject({ pauses: 1, longestPauseMs: 7000 });
  });

  it('reaches but never passes the RPM limit when only RPM binds', async () => {
    const clock = new VirtualClock();
    const client = scriptedClient(clock, () => ({ durationMs: 500, outcome: okOutcome(PROMPT, COMPLETION) }));
    const events: QueueEvent[] = [];
    const queue = new LlmQueue(client, new RateLimiter({ rpm: 20, clock }), {
      concurrency: 8,
      maxAttempts: 3,
      clock,
      countTokens: () => 0,
      onEvent: (e) => events.push(e),
    });
    await clock.runUntil(Promise.all(Array.from({ length: 70 }, (_, i) => queue.run(job(i)))));
    const sends = events.filter((e) => e.type === 'send').map((e) => ({ at: e.at, tokens: 0 }));
    const worst = worstWindow(sends);
    console.log(`[limiter] 70 jobs, rpm 20: worst 60 s window ${worst.requests} requests`);
    expect(worst.requests).toBe(20);
    expect(sends.at(-1)!.at).toBeGreaterThanOrEqual(3 * WINDOW_MS);
  });

  it('stops waiting out a pause when the run is interrupted: the job fails as aborted, not after the pause', async () => {
    const clock = new VirtualClock();
    const stop = new AbortController();
    const client = scriptedClient(clock, () => ({
      durationMs: 100,
      outcome: { ok: false, error: { code: 'rate_limited', status: 429, message: '429', retryAfterMs: 60_000 } },
    }));
    const queue = new LlmQueue(client, new RateLimiter({ clock }), { concurrency: 2, maxAttempts: 3, clock, countTokens: () => 0, signal: stop.signal });
    const jobs = Promise.all([queue.run(job(0)), queue.run(job(1))]);
    void clock.sleep(5000).then(() => stop.abort());
    const outs = await clock.runUntil(jobs);
    expect(outs.map((o) => !o.ok && o.error.code)).toEqual(['aborted', 'aborted']);
    expect(clock.now()).toBe(5000);
    expect(client.calls).toHaveLength(2);
  });

  it('fails a job that alone needs more than the TPM limit at once, without sending it', async () => {
    const clock = new VirtualClock();
    const client = scriptedClient(clock, () => ({ durationMs: 10, outcome: okOutcome(PROMPT, COMPLETION) }));
    const queue = new LlmQueue(client, new RateLimiter({ tpm: 1200, clock }), { concurrency: 1, maxAttempts: 3, clock, countTokens: () => 0 });
    const outcome = await clock.runUntil(queue.run(job(0)));
    expect(outcome).toMatchObject({ ok: false, attempts: 0, error: { code: 'exceeds_tpm' } });
    expect(client.calls).toHaveLength(0);
  });

  it('waits for the reset the server announces when it says no requests remain', async () => {
    const clock = new VirtualClock(1_000_000);
    const limiter = new RateLimiter({ clock });
    limiter.observe({ remainingRequests: 0, resetRequestsMs: 5000 });
    const first = await clock.runUntil(limiter.acquire(10));
    expect(first.ok && first.waitedMs).toBe(5000);
    limiter.observe({ remainingTokens: 50, resetTokensMs: 2000 });
    const second = await clock.runUntil(limiter.acquire(100));
    expect(second.ok && second.waitedMs).toBe(2000);
  });

  it('adopts a lower limit from x-ratelimit-limit-requests', async () => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter({ rpm: 100, clock });
    limiter.observe({ limitRequests: 2 });
    expect(limiter.limits.rpm).toBe(2);
    await clock.runUntil(limiter.acquire(1));
    await clock.runUntil(limiter.acquire(1));
    const third = await clock.runUntil(limiter.acquire(1));
    expect(third.ok && third.waitedMs).toBe(WINDOW_MS);
  });

  it('counts a request in the window from its answer, so the server never sees more than the limit in 60 s', async () => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter({ rpm: 1, clock });
    const first = await clock.runUntil(limiter.acquire(1));
    // The answer comes 700 ms later: the server may have seen the request at any time up to then.
    await clock.runUntil(clock.sleep(700));
    if (first.ok) first.reservation.settle(1);
    const second = await clock.runUntil(limiter.acquire(1));
    expect(second.ok && second.waitedMs).toBe(WINDOW_MS);
  });
});
