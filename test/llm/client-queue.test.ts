import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../helpers/seeded-random.js';
import { createOpenAIChatClient } from '../../src/llm/client.js';
import { RateLimiter } from '../../src/llm/limiter.js';
import { type JobOutcome, LlmQueue, type QueueEvent } from '../../src/llm/queue.js';
import { SkippingClock } from './fake-clock.js';
import { type Fault, type FakeServerOptions, type FakeServer, startFakeOpenAI } from './fake-openai-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const job = (label = 'job', content = 'Summarize nothing.') => ({
  label,
  promptTokens: 20,
  request: { messages: [{ role: 'user' as const, content }], maxTokens: 100, temperature: 0 },
});

async function setup(options: FakeServerOptions, extra: { timeoutMs?: number; maxAttempts?: number; concurrency?: number; baseURL?: string } = {}) {
  server = await startFakeOpenAI(options);
  const clock = new SkippingClock();
  const events: QueueEvent[] = [];
  const client = createOpenAIChatClient({
    model: 'gpt-4o-mini',
    baseURL: extra.baseURL ?? server.baseURL,
    apiKey: 'test-key',
    timeoutMs: extra.timeoutMs ?? 10_000,
  });
  const limiter = new RateLimiter({ clock });
  const queue = new LlmQueue(client, limiter, {
    concurrency: extra.concurrency ?? 1,
    maxAttempts: extra.maxAttempts ?? 3,
    clock,
    random: seededRandom(7),
    countTokens: (t) => Math.ceil(t.length / 4),
    onEvent: (e) => events.push(e),
  });
  return { clock, events, queue, limiter, server };
}

const faults = (...f: Fault[]) => ({ faults: f });

describe('client and queue against the loopback server', () => {
  it('sends a chat completion with SDK retries off and returns text and usage', async () => {
    const { queue, server } = await setup({});
    const out = await queue.run(job());
    expect(out.ok).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].path).toBe('/v1/chat/completions');
    expect(server.requests[0].body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 100, temperature: 0 });
    if (out.ok) expect(out.value.usage.promptTokens).toBeGreaterThan(0);
  });

  it('waits the Retry-After seconds of a 429, then succeeds on the second call', async () => {
    const { queue, server, clock, events } = await setup(faults({ kind: 'rate_limit', retryAfter: '7' }));
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: true, attempts: 2, failures: ['rate_limited'] });
    expect(server.requests).toHaveLength(2);
    expect(events.find((e) => e.type === 'pause')).toMatchObject({ ms: 7000, requestedMs: 7000, capped: false });
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThan(6900);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(7000);
  });

  it('reads a Retry-After HTTP date as the time left until it', async () => {
    const date = new Date(Date.now() + 30_000).toUTCString();
    const { queue, clock } = await setup(faults({ kind: 'rate_limit', retryAfter: date }));
    expect((await queue.run(job())).ok).toBe(true);
    // HTTP dates have whole seconds: the wait is between 29 and 30 s.
    expect(clock.sleeps[0]).toBeGreaterThan(28_000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(30_000);
  });

  it('caps a Retry-After of 120 s at 60 s and reports the cap', async () => {
    const { queue, clock, events } = await setup(faults({ kind: 'rate_limit', retryAfter: '120' }));
    expect((await queue.run(job())).ok).toBe(true);
    const pause = events.find((e) => e.type === 'pause');
    expect(pause).toMatchObject({ ms: 60_000, requestedMs: 120_000, capped: true });
    console.log(`[retry-after 120 s] computed delay ${(pause as { ms: number }).ms} ms (capped)`);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(60_000);
    expect(clock.sleeps[0]).toBeGreaterThan(59_000);
  });

  it('prefers retry-after-ms over Retry-After', async () => {
    const { queue, events } = await setup(faults({ kind: 'rate_limit', retryAfter: '9', retryAfterMs: '250' }));
    expect((await queue.run(job())).ok).toBe(true);
    expect(events.find((e) => e.type === 'pause')).toMatchObject({ ms: 250 });
  });

  it('gives up after 3 attempts in a 429 storm and fails as data', async () => {
    const storm = { script: () => ({ kind: 'rate_limit', retryAfter: '2' }) as Fault };
    const { queue, server, clock } = await setup(storm);
    const out = await queue.run(job());
    expect(out).toMatchObject({
      ok: false,
      attempts: 3,
      failures: ['rate_limited', 'rate_limited', 'rate_limited'],
      error: { code: 'rate_limited', status: 429 },
    });
    expect(server.requests).toHaveLength(3);
    // Two pauses of 2 s between the three calls; none after the last.
    expect(clock.sleeps).toHaveLength(2);
    console.log(`[429 storm] attempts ${out.attempts}, waits ${clock.sleeps.map((s) => Math.round(s)).join(' + ')} ms`);
  });

  it('pauses the whole queue: no job is sent while a 429 pause runs', async () => {
    const { queue, events } = await setup(faults({ kind: 'ok' }, { kind: 'rate_limit', retryAfter: '5' }), { concurrency: 4 });
    const outs = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => queue.run(job(`j${i}`, `question ${i}`))));
    expect(outs.every((o) => o.ok)).toBe(true);
    const pause = events.find((e) => e.type === 'pause')!;
    const during = events.filter((e) => e.type === 'send' && e.at > pause.at && e.at < pause.at + 5000);
    expect(during).toEqual([]);
  });

  it('retries 500 and 503 with exponential backoff, then succeeds', async () => {
    const { queue, server, clock, events } = await setup(faults({ kind: 'status', status: 500 }, { kind: 'status', status: 503 }));
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: true, attempts: 3, failures: ['server_error', 'server_error'] });
    expect(server.requests).toHaveLength(3);
    const backoffs = events.filter((e) => e.type === 'backoff').map((e) => (e as { ms: number }).ms);
    expect(backoffs[0]).toBeGreaterThanOrEqual(375);
    expect(backoffs[0]).toBeLessThanOrEqual(500);
    expect(backoffs[1]).toBeGreaterThanOrEqual(750);
    expect(backoffs[1]).toBeLessThanOrEqual(1000);
    expect(clock.sleeps).toEqual(backoffs);
  });

  it('honours Retry-After on a 503 too, without pausing the other jobs', async () => {
    const { queue, events } = await setup(faults({ kind: 'status', status: 503, headers: { 'retry-after': '3' } }));
    expect((await queue.run(job())).ok).toBe(true);
    expect(events.find((e) => e.type === 'backoff')).toMatchObject({ ms: 3000 });
    expect(events.some((e) => e.type === 'pause')).toBe(false);
  });

  it('fails with server_error after 3 attempts of 500', async () => {
    const { queue, server } = await setup({ script: () => ({ kind: 'status', status: 500 }) });
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: false, attempts: 3, error: { code: 'server_error', status: 500 } });
    expect(server.requests).toHaveLength(3);
  });

  it('aborts a request that hangs past the timeout, retries, and leaks no timer', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const { queue, server } = await setup({ script: () => ({ kind: 'hang' }) }, { timeoutMs: 200 });
    const started = Date.now();
    const out = await queue.run(job());
    const elapsed = Date.now() - started;
    expect(out).toMatchObject({ ok: false, attempts: 3, failures: ['timeout', 'timeout', 'timeout'], error: { code: 'timeout' } });
    expect(server.requests).toHaveLength(3);
    await server.close();
    await new Promise((r) => setTimeout(r, 20));
    const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    console.log(`[timeout] 3 attempts of 200 ms in ${elapsed} ms; Timeout handles before ${before}, after ${after}`);
    expect(after).toBeLessThanOrEqual(before);
    expect(elapsed).toBeGreaterThanOrEqual(600);
  });

  it('never retries context_length_exceeded', async () => {
    const { queue, server } = await setup(faults({ kind: 'context_length_exceeded' }));
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { code: 'context_length_exceeded', status: 400 } });
    expect(server.requests).toHaveLength(1);
  });

  it('reports a 200 that is not a chat completion as bad_response, without retrying', async () => {
    const { queue, server } = await setup(faults({ kind: 'garbage' }));
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { code: 'bad_response' } });
    expect(server.requests).toHaveLength(1);
  });

  it('returns an empty answer as text "" for the caller to reject', async () => {
    const { queue } = await setup(faults({ kind: 'empty' }));
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: true, value: { text: '' } });
  });

  it('does not retry a refused key or an exhausted quota', async () => {
    const auth = await setup(faults({ kind: 'status', status: 401 }));
    expect(await auth.queue.run(job())).toMatchObject({ ok: false, attempts: 1, error: { code: 'auth' } });
    await auth.server.close();
    const quota = await setup(faults({ kind: 'rate_limit', code: 'insufficient_quota', retryAfter: '1' }));
    expect(await quota.queue.run(job())).toMatchObject({ ok: false, attempts: 1, error: { code: 'quota_exceeded' } });
  });

  it('retries connection failures (nothing listening)', async () => {
    const closed = await startFakeOpenAI();
    const deadURL = closed.baseURL;
    await closed.close();
    const { queue } = await setup({}, { baseURL: deadURL });
    const out: JobOutcome = await queue.run(job());
    expect(out).toMatchObject({ ok: false, attempts: 3, failures: ['connection', 'connection', 'connection'] });
  });

  it('slows down when the headers say no requests remain until the reset', async () => {
    const { queue, clock } = await setup({ headers: () => ({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' }) });
    await queue.run(job('a'));
    await queue.run(job('b'));
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThan(1900);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(2000);
  });

  it('counts the answer itself when the server sends no usage', async () => {
    const { queue } = await setup({ omitUsage: true });
    const out = await queue.run(job());
    expect(out).toMatchObject({ ok: true, value: { usageEstimated: true, usage: { promptTokens: 20 } } });
  });
});
