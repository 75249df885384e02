import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_RULES, parseCacheModel, rulesForModel } from '../../../src/provider/cache-rules.js';
import { callModelOf, chooseCache, defaultCacheModel, recordedCacheTtl, recordedHits } from '../../../src/replay/billing/cache-choice.js';
import { recordedUsage } from '../../../src/replay/billing/recorded-usage.js';
import { replay } from '../../../src/replay/replay.js';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { LONG_SESSION, longSessionHead } from '../../helpers/long-session.js';
import { BUNDLED } from '../../helpers/paths.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The heuristic tokenizer counts ceil(chars / 4); every message adds 3 tokens of framing.
const tok = getTokenizer('heuristic');
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();
const user = (chars: number, minutes?: number): Message =>
  ({ role: 'user', content: 'u'.repeat(chars), ...(minutes === undefined ? {} : { timestamp: at(minutes) }) }) as Message;
const assistant = (chars: number, minutes?: number): Message =>
  ({ role: 'assistant', content: 'a'.repeat(chars), ...(minutes === undefined ? {} : { timestamp: at(minutes) }) }) as Message;

describe('the replay times its calls by the recorded timestamps', () => {
  // u0 = 4000/4 + 3 = 1003, a1 = 5, u2 = 43, a3 = 5, u4 = 43, a5 = 5; base prompt 2000.
  // Calls at minutes 0, 1 and 11 (each goes out at its prompt's last message): 10 minutes pass before the third.
  const timed: Transcript = {
    id: 'timed',
    messages: [user(4000, 0), assistant(8, 0), user(160, 1), assistant(8, 1), user(160, 11), assistant(8, 11)],
  };
  const untimed: Transcript = { id: 'untimed', messages: timed.messages.map(({ timestamp: _t, ...m }) => m as Message) };
  const run = (t: Transcript, model: keyof typeof CACHE_RULES) =>
    replay(t, {}, { tokenizer: tok, window: 100_000, basePrompt: 2000, cache: CACHE_RULES[model] });

  it('loses the 5-minute cache over the 10-minute gap, and keeps the 1-hour one', async () => {
    const five = await run(timed, 'anthropic-5m');
    const hour = await run(timed, 'anthropic-1h');
    // Prompts: 3003, 3051, 3099. Call 2 reads call 1's prompt; call 3 reads call 2's only with the 1-hour TTL.
    expect([five.billedInput, five.cachedInput, five.cacheWrites]).toEqual([3003 + 3051 + 3099, 3003, 3003 + 48 + 3099]);
    expect([hour.cachedInput, hour.cacheWrites]).toEqual([3003 + 3051, 3003 + 48 + 48]);
  });

  it('spaces the calls of a transcript without timestamps by the default gap (10 s), inside both TTLs', async () => {
    const five = await run(untimed, 'anthropic-5m');
    expect([five.cachedInput, five.cacheWrites]).toEqual([3003 + 3051, 3003 + 48 + 48]);
    const slow = await replay(untimed, {}, { tokenizer: tok, window: 100_000, basePrompt: 2000, cache: CACHE_RULES['anthropic-5m'], callGapSeconds: 301 });
    expect([slow.cachedInput, slow.cacheWrites]).toEqual([0, 3003 + 3051 + 3099]);
  });

  it('bills the ideal cache like the others: the prefix shared with the previous call read, the rest written', async () => {
    const ideal = await run(timed, 'ideal');
    expect(ideal.cachedInput).toBe(3003 + 3051);
    expect(ideal.cacheWrites).toBe(ideal.billedInput - ideal.cachedInput);
  });
});

describe('a provider caches per model', () => {
  const on = (m: Message, model: string) => ({ ...m, model }) as Message;
  // Prompts 3003, 3051, 3099 as above, one minute apart; the second call is made by another model.
  const switched: Transcript = {
    id: 'switched',
    messages: [user(4000, 0), on(assistant(8, 0), 'opus'), user(160, 1), on(assistant(8, 1), 'haiku'), user(160, 2), on(assistant(8, 2), 'opus')],
  };

  it("a call by another model reads none of the first model's cache, and the first model's entries stay live", async () => {
    const s = await replay(switched, {}, { tokenizer: tok, window: 100_000, basePrompt: 2000, cache: CACHE_RULES['anthropic-5m'] });
    // haiku writes its whole prompt; the third call (opus again) reads the first call's 3003 and writes the 96 after.
    expect([s.cachedInput, s.cacheWrites]).toEqual([3003, 3003 + 3051 + 96]);
    const one = await replay(
      { ...switched, messages: switched.messages.map((m) => on(m, 'opus')) },
      {},
      { tokenizer: tok, window: 100_000, basePrompt: 2000, cache: CACHE_RULES['anthropic-5m'] },
    );
    expect([one.cachedInput, one.cacheWrites]).toEqual([3003 + 3051, 3003 + 48 + 48]);
    // The ideal cache of earlier versions stays one per transcript.
    const ideal = await replay(switched, {}, { tokenizer: tok, window: 100_000, basePrompt: 2000, cache: CACHE_RULES.ideal });
    expect(ideal.cachedInput).toBe(3003 + 3051);
  });
});

describe('choosing the cache model', () => {
  it('refuses an unknown model with the list of models', () => {
    expect(() => parseCacheModel('simulate', 'anthropic')).toThrow(
      'simulate: --cache must be one of anthropic-5m, anthropic-1h, openai, google, ideal, none (got "anthropic")',
    );
    expect(parseCacheModel('simulate', undefined)).toBeUndefined();
    expect(parseCacheModel('simulate', 'openai')).toBe('openai');
  });

  it('takes the provider from the source, else from the recorded model', () => {
    const t = (metadata: Record<string, unknown>): Transcript => ({ id: 'x', messages: [], metadata });
    expect(defaultCacheModel(t({ source: { format: 'claude-code' } }))).toBe('anthropic-5m');
    // Claude Code asks for the 1-hour TTL on some plans, and its records say which.
    const writes = (m5: number, h1: number) =>
      ({
        role: 'assistant',
        content: 'a',
        usage: { cache_creation_input_tokens: m5 + h1, cache_creation: { ephemeral_5m_input_tokens: m5, ephemeral_1h_input_tokens: h1 } },
      }) as Message;
    const byRecord = (...messages: Message[]) => {
      const transcript: Transcript = { id: 'r', messages, metadata: { source: { format: 'claude-code' } } };
      return defaultCacheModel(transcript, recordedUsage(transcript));
    };
    expect(byRecord(writes(0, 900), writes(100, 0))).toBe('anthropic-1h');
    expect(byRecord(writes(900, 0), writes(0, 100))).toBe('anthropic-5m');
    expect(defaultCacheModel(t({ source: { format: 'codex' } }))).toBe('openai');
    expect(defaultCacheModel(t({ source: { format: 'swe-agent' }, models: ['gpt-4-0613'] }))).toBe('openai');
    expect(defaultCacheModel(t({ source: { format: 'openhands' }, models: ['claude-3-5-sonnet'] }))).toBe('anthropic-5m');
    expect(defaultCacheModel(t({ source: { format: 'messages' } }))).toBe('anthropic-5m');
    expect(defaultCacheModel(t({ source: { format: 'gemini' } }))).toBe('google');
    expect(defaultCacheModel(t({ source: { format: 'gemini-checkpoint' } }))).toBe('google');
    expect(defaultCacheModel(t({ source: { format: 'opencode' }, models: ['gemini-2.5-flash'] }))).toBe('google');
  });
});

describe("Google's implicit cache", () => {
  const google = CACHE_RULES.google;
  const call = (minutes: number, input: number, cached: number, model = 'gemini-2.5-pro'): Message =>
    ({
      role: 'assistant',
      content: 'a',
      model,
      timestamp: at(minutes),
      usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: 1 },
    }) as Message;

  it("reads a prefix with no write premium, from Google's minimum for the model: 2,048 for Gemini 2.5, 4,096 for later ones", () => {
    expect([google.kind, google.writeTtl, google.writeMultiplier, google.bestEffort]).toEqual(['prefix', null, 1, true]);
    expect(rulesForModel(google, 'gemini-2.5-flash').minTokens).toBe(2048);
    expect(rulesForModel(google, 'google/gemini-2.5-pro').minTokens).toBe(2048);
    expect(rulesForModel(google, 'gemini-3-pro-preview').minTokens).toBe(4096);
    expect(rulesForModel(CACHE_RULES.openai, 'gemini-2.5-flash')).toBe(CACHE_RULES.openai);
  });

  it("takes its TTL from the record's own hits: the longest gap after which a call read the cache, never below 5 minutes", () => {
    const modelOf = callModelOf({ id: 'g', messages: [] });
    const late = { id: 'g', messages: [call(0, 9000, 0), call(2, 9500, 9000), call(11, 9900, 9500), call(30, 9990, 0)] };
    expect(recordedCacheTtl(late, google, modelOf)).toBe(9 * 60);
    expect(recordedHits(late, 9 * 60, modelOf)).toEqual({ eligible: 2, hit: 2 });
    const early = { id: 'g', messages: [call(0, 9000, 0), call(1, 9500, 9000), call(3, 9900, 0)] };
    expect(recordedCacheTtl(early, google, modelOf)).toBe(5 * 60);
    expect(recordedHits(early, 5 * 60, modelOf)).toEqual({ eligible: 2, hit: 1 });
    expect(recordedCacheTtl({ id: 'g', messages: [call(0, 9000, 0), call(1, 9500, 0)] }, google, modelOf)).toBeUndefined();
    // Each model's calls are timed against that model's previous call.
    const two = { id: 'g', messages: [call(0, 9000, 0), call(1, 300, 0, 'gemini-2.5-flash-lite'), call(8, 9500, 9000)] };
    expect(recordedCacheTtl(two, google, modelOf)).toBe(8 * 60);
  });

  it('bills a Gemini session with the TTL its record shows', async () => {
    const t: Transcript = {
      id: 'g',
      messages: [user(40_000, 0), call(0, 12_000, 0), user(400, 9), call(9, 12_150, 12_000)],
      metadata: { source: { format: 'gemini' } },
    };
    const choice = chooseCache(t, recordedUsage(t), { prices: {}, callGapSeconds: 10 });
    expect([choice.rules.name, choice.rules.ttlSeconds]).toEqual(['google', 9 * 60]);
    const billed = await replay(t, {}, { tokenizer: tok, window: 100_000, cache: choice.rules });
    // The second call reads the first call's prompt (40,000 / 4 + 3), 9 minutes later.
    expect(billed.cachedInput).toBe(10_003);
    expect((await replay(t, {}, { tokenizer: tok, window: 100_000, cache: google })).cachedInput).toBe(0);
  });
});

interface RecordedJson {
  uncachedInput: number;
  cacheCreation: number;
  cacheCreation1h: number;
  cacheRead: number;
  output: number;
  cost: { withCache: number };
}

interface PolicyJson {
  name: string;
  billedInput: number;
  cachedInput: number;
  cacheWrites?: number;
  outputTokens: number;
  cost: { withoutCache: number; withCache: number };
}

describe('tcompact simulate --cache on the bundled Claude Code session', { timeout: 120_000 }, () => {
  /**
   * The long session up to a few calls past its one gap of more than 5 minutes (14 minutes before line 1,481, where
   * Claude Code compacted it), as Claude Code leaves the file part way through: the calls after these show no other
   * gap, and each of the five simulations of it costs a third less.
   */
  const session = join(tempDir('sim-cache-session'), `${LONG_SESSION}.jsonl`);
  writeFileSync(session, longSessionHead(1_520));
  const simulate = async (extra: string[]) => {
    const out = tempDir('sim-cache');
    const run = await runMain(['simulate', session, '--window', '100000', '--base-prompt', '20000', '--policy', 'mask-10', '--out', out, ...extra]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    return {
      json: JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
        policies: PolicyJson[];
        cache: { models: Record<string, unknown> };
        recorded: { usage: { cacheCreation1h?: number } };
      },
      md: readFileSync(join(out, 'simulate.md'), 'utf8'),
    };
  };
  // --price-in and --price-out bill both of the session's models at one price, the cache's multiples of it.
  const PRICES = ['--price-in', '3', '--price-out', '15'];
  /** The default run (the cache chosen by the source), read by two tests: one simulation of the session is about 2 s. */
  let byDefault: ReturnType<typeof simulate> | undefined;
  const simulateByDefault = () => (byDefault ??= simulate(PRICES));

  it('bills Claude Code by default with the 5-minute cache: reads, writes and plain input add up to the prices', async () => {
    const { json, md } = await simulateByDefault();
    expect(json.cache).toMatchObject({ chosenBy: 'source', models: { 'anthropic-5m': { transcripts: 1, ttlSeconds: 300, minTokens: 1024 } } });
    for (const p of json.policies) {
      const writes = p.cacheWrites as number;
      const plain = p.billedInput - p.cachedInput - writes;
      expect(plain).toBeGreaterThanOrEqual(0);
      expect(p.cost.withCache).toBeCloseTo((p.cachedInput * 0.3 + writes * 3.75 + plain * 3 + p.outputTokens * 15) / 1e6, 9);
    }
    expect(md).toContain("- `anthropic-5m` (1 transcripts): Anthropic's prompt cache with the 5-minute TTL; entries expire 5 min after their last use");
    // This session wrote every cache entry with the 5-minute TTL.
    expect(json.recorded.usage.cacheCreation1h).toBe(0);
  });

  it('prices the recorded writes by the TTL they were made with', async () => {
    const out = tempDir('sim-cache');
    const run = await runMain(['simulate', join(BUNDLED, 'claude-code', 'subagent.jsonl'), '--policy', 'none', '--out', out]);
    expect(run.code).toBe(0);
    const u = (JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { recorded: { usage: RecordedJson } }).recorded.usage;
    expect(u.cacheCreation1h).toBeGreaterThan(0);
    expect(u.cacheCreation1h).toBeLessThanOrEqual(u.cacheCreation);
    // Claude Opus 4.6 at its list prices: input 5, 5-minute writes 6.25, 1-hour writes 10, reads 0.5, output 25.
    const expected = (u.uncachedInput * 5 + (u.cacheCreation - u.cacheCreation1h) * 6.25 + u.cacheCreation1h * 10 + u.cacheRead * 0.5 + u.output * 25) / 1e6;
    expect(u.cost.withCache).toBeCloseTo(expected, 9);
  });

  it('orders the models as their rules say: no cache costs most, the 1-hour TTL reads at least what the 5-minute one does', async () => {
    // The default run bills with the 5-minute cache (the test above shows it chose `anthropic-5m`); all at one price.
    const none = (await simulate(['--cache', 'none', ...PRICES])).json.policies;
    const five = (await simulateByDefault()).json;
    expect(Object.keys(five.cache.models)).toEqual(['anthropic-5m']);
    const hour = (await simulate(['--cache', 'anthropic-1h', ...PRICES])).json.policies;
    const ideal = (await simulate(['--cache', 'ideal', ...PRICES])).json;
    for (let i = 0; i < none.length; i++) {
      expect(none[i].cachedInput).toBe(0);
      expect(none[i].cost.withCache).toBeCloseTo(none[i].cost.withoutCache, 9);
      expect(hour[i].cachedInput).toBeGreaterThanOrEqual(five.policies[i].cachedInput);
      expect(five.policies[i].cost.withCache).toBeLessThan(none[i].cost.withCache);
    }
    // The session has a gap of more than 5 minutes between two calls: the TTL matters on real data.
    expect(hour[0].cachedInput).toBeGreaterThan(five.policies[0].cachedInput);
    // The ideal cache is one model among the others: reported, and everything it does not read is a write.
    expect(Object.keys(ideal.cache.models)).toEqual(['ideal']);
    expect(ideal.policies.every((p) => p.cacheWrites === p.billedInput - p.cachedInput)).toBe(true);
  });

  it("--base-prompt recorded: each transcript's first replayed prompt is its first recorded call's input", async () => {
    const out = tempDir('sim-cache');
    const run = await runMain(['simulate', session, '--policy', 'none', '--base-prompt', 'recorded', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      basePrompt: unknown;
      perTranscript: { basePrompt: number; policies: { none: { firstPrompt: number } }; recorded: { firstCallInput: number } }[];
    };
    expect(json.basePrompt).toBe('recorded');
    const [t] = json.perTranscript;
    expect(t.basePrompt).toBeGreaterThan(0);
    expect(t.policies.none.firstPrompt).toBe(t.recorded.firstCallInput);
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toContain("as its first recorded call's input minus the replayed first prompt");
  });

  it('--base-prompt recorded: a first call reads as much of its base prompt as it recorded reading (another session had sent it)', async () => {
    // One call that recorded 11,515 tokens read from the cache and 13,835 written: the system prompt and tools were warm.
    const single = join(BUNDLED, 'claude-code', 'short.jsonl');
    const run = async (base: string) => {
      const out = tempDir('sim-cache');
      const r = await runMain(['simulate', single, '--policy', 'none', '--cache', 'anthropic-5m', '--base-prompt', base, '--out', out]);
      expect([r.code, r.stderr]).toEqual([0, '']);
      type Json = { perTranscript: { basePrompt?: number; policies: { none: PolicyJson & { firstPrompt: number; calls: number } } }[] };
      return (JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as Json).perTranscript[0];
    };
    const recorded = await run('recorded');
    const none = recorded.policies.none;
    expect(none.calls).toBe(1);
    expect(none.cachedInput).toBe(Math.min(11_515, recorded.basePrompt as number));
    expect(none.cacheWrites).toBe(none.firstPrompt - none.cachedInput);
    // A fixed base prompt says nothing of the provider's cache: the first call writes all of it.
    expect((await run('20000')).policies.none.cachedInput).toBe(0);
  });

  it('refuses an unknown cache model with an exact message', async () => {
    const out = tempDir('sim-cache');
    const run = await runMain(['simulate', session, '--out', out, '--cache', 'lru']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      'tcompact simulate: E_USAGE: simulate: --cache must be one of anthropic-5m, anthropic-1h, openai, google, ideal, none (got "lru")',
    ]);
  });
});
