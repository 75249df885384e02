import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { CACHE_RULES, type CacheModelName } from '../../../src/provider/cache-rules.js';
import { pricesFor } from '../../../src/replay/billing/prices.js';
import {
  OPTIMAL_SPACE,
  RESULTS_ONLY_SPACE,
  type ScheduleSpace,
  followSchedule,
  optimalPolicy,
  optimalResultsPolicy,
  optimalSchedule,
} from '../../../src/replay/policies/optimal/optimal-policy.js';
import { type PlannedCompaction, TranscriptPlan } from '../../../src/replay/policies/optimal/plan.js';
import type { PlannedPrompt, Schedule } from '../../../src/replay/policies/optimal/schedule.js';
import type { PolicyEnv, PolicyInstance } from '../../../src/replay/policies/policy.js';
import { type ReplayStats, replay } from '../../../src/replay/replay.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { bundledTranscripts } from '../../helpers/bundled-transcripts.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { assistant, call, result, sys, user } from '../../helpers/transcript-kit.js';

const tok = getTokenizer('o200k_base');
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed) % 1000}`).join(' ');

/** An agent session: tool calls (some parallel) and their results of varied sizes, user turns, gaps over and under the TTL. */
function session(seed: number, steps: number): Transcript {
  const rand = seededRandom(seed);
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  let clock = 0;
  const messages: Message[] = [sys(words(300, seed)), { ...user(`task ${seed}: ${words(40, seed)}`), timestamp: at(clock) }];
  for (let s = 0; s < steps; s++) {
    clock += rand() < 0.15 ? 400_000 + rand() * 4_000_000 : rand() * 60_000;
    const parallel = rand() < 0.3 ? 2 + Math.floor(rand() * 2) : 1;
    const calls = Array.from({ length: parallel }, (_, p) => call(`c${s}-${p}`, rand() < 0.5 ? 'Read' : 'Bash', { path: `src/${s}/${p}.ts` }));
    messages.push({ ...assistant(`step ${s}`, { tool_calls: calls }), timestamp: at(clock) });
    for (const c of calls) messages.push({ ...result(c.id, words(Math.floor(rand() ** 2 * 3000) + 5, s)), timestamp: at(clock + 1000) });
    if (rand() < 0.15) messages.push({ ...user(`then ${words(20, s)}`), timestamp: at(clock + 2000) });
  }
  messages.push({ ...assistant('done'), timestamp: at(clock + 5000) });
  return { id: `s${seed}`, messages };
}

function envFor(t: Transcript, cache: CacheModelName, window: number): PolicyEnv {
  return {
    tokenizer: tok,
    window,
    basePrompt: 0,
    cooldown: 0,
    maxAttempts: 3,
    transcript: t,
    cache: CACHE_RULES[cache],
    pricesAt: () => pricesFor(CACHE_RULES[cache], { input: 3, output: 15 }),
    callGapSeconds: 10,
  };
}

async function run(t: Transcript, instance: PolicyInstance, env: PolicyEnv): Promise<ReplayStats & { inputCost: number }> {
  const stats = await replay(t, instance, { tokenizer: tok, window: env.window, cache: env.cache, callGapSeconds: env.callGapSeconds });
  const p = env.pricesAt(0);
  const plain = stats.billedInput - stats.cachedInput - stats.cacheWrites;
  return { ...stats, inputCost: (stats.cachedInput * p.cached + stats.cacheWrites * p.cacheWrite + plain * p.input) / 1e6 };
}

/** A schedule made of the edits of `space`, drawn at random: clear at some calls, compact at some of the calls it may. */
function randomSchedule(plan: TranscriptPlan, compactions: readonly (PlannedCompaction | undefined)[], rand: () => number, space: ScheduleSpace): Schedule {
  const kind = space.kinds[Math.floor(rand() * space.kinds.length)];
  const editRate = rand();
  let segment = -1;
  let firstUse = 0;
  let cleared = 0;
  const prompts: PlannedPrompt[] = plan.calls.map((c, t) => {
    const compaction = compactions[t];
    if (space.compact && compaction && rand() < 0.2) {
      segment = t;
      firstUse = compaction.firstUse;
      cleared = firstUse;
    }
    if (rand() < editRate) cleared = Math.max(cleared, firstUse, c.uses - kind.keep);
    return { segment, cleared };
  });
  return { kind, prompts, inputCost: 0, overWindow: 0 };
}

describe('the hindsight-optimal schedule', () => {
  it('bills exactly what it planned: its cache model is the replay’s', async () => {
    for (const cache of ['anthropic-5m', 'anthropic-1h', 'openai', 'ideal'] as const) {
      for (const seed of [1, 2, 3]) {
        const t = session(seed, 40);
        const env = envFor(t, cache, 30_000);
        const plan = new TranscriptPlan(t, tok, env.callGapSeconds, env.cache.perModel);
        const { schedule } = optimalSchedule(plan, env);
        const replayed = await run(t, optimalPolicy.instantiate(env), env);
        expect(replayed.callsOverWindow).toBe(schedule.overWindow);
        expect(replayed.inputCost).toBeCloseTo(schedule.inputCost, 9);
      }
    }
  });

  it('bills exactly what it planned when requests the record does not price sit among the calls', async () => {
    // Codex requests cut before any usage: their items stay in later prompts, but they are no billed calls.
    for (const cache of ['anthropic-5m', 'openai'] as const) {
      const base = session(4, 30);
      let replies = 0;
      const t = { ...base, messages: base.messages.map((m) => (m.role === 'assistant' && ++replies % 7 === 3 ? { ...m, unpriced_request: true } : m)) };
      const env = envFor(t, cache, 30_000);
      const plan = new TranscriptPlan(t, tok, env.callGapSeconds, env.cache.perModel);
      const unpriced = t.messages.filter((m) => m.unpriced_request === true).length;
      expect(unpriced).toBeGreaterThan(2);
      expect(plan.calls).toHaveLength(replies - unpriced);
      const { schedule } = optimalSchedule(plan, env);
      const replayed = await run(t, optimalPolicy.instantiate(env), env);
      expect(replayed.calls).toBe(plan.calls.length);
      expect(replayed.inputCost).toBeCloseTo(schedule.inputCost, 9);
    }
  });

  it.each([
    ['optimal', optimalPolicy, OPTIMAL_SPACE],
    ['optimal-results', optimalResultsPolicy, RESULTS_ONLY_SPACE],
  ] as const)('%s costs no more than any policy made of the edits it considers, on any transcript', async (_, policy, space) => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 5, max: 30 }),
        fc.constantFrom<CacheModelName>('anthropic-5m', 'anthropic-1h', 'openai', 'ideal'),
        fc.integer({ min: 6_000, max: 40_000 }),
        async (seed, steps, cache, window) => {
          const t = session(seed, steps);
          const env = envFor(t, cache, window);
          const plan = new TranscriptPlan(t, tok, env.callGapSeconds, env.cache.perModel);
          const { compactions } = optimalSchedule(plan, env);
          const optimal = await run(t, policy.instantiate(env), env);
          const rand = seededRandom(seed);
          for (let i = 0; i < 4; i++) {
            const schedule = randomSchedule(plan, compactions, rand, space);
            const other = await run(t, followSchedule(plan, schedule, compactions, env), env);
            expect(optimal.callsOverWindow).toBeLessThanOrEqual(other.callsOverWindow);
            if (optimal.callsOverWindow === other.callsOverWindow) expect(optimal.inputCost).toBeLessThanOrEqual(other.inputCost + 1e-12);
          }
        },
      ),
      { numRuns: 40, seed: 33 },
    );
  });

  it('optimal-results keeps every input and never compacts, and lies between optimal and none', async () => {
    for (const seed of [4, 5, 6]) {
      const t = session(seed, 40);
      const env = envFor(t, 'anthropic-5m', 30_000);
      const plan = new TranscriptPlan(t, tok, env.callGapSeconds, env.cache.perModel);
      const { schedule } = optimalSchedule(plan, env, RESULTS_ONLY_SPACE);
      expect(schedule.kind.inputs).toBe(false);
      expect(schedule.prompts.every((p) => p.segment === -1)).toBe(true);
      expect(schedule.prompts.some((p) => p.cleared > 0)).toBe(true);
      const [none, optimal, results] = await Promise.all(
        [{}, optimalPolicy.instantiate(env), optimalResultsPolicy.instantiate(env)].map((i) => run(t, i, env)),
      );
      expect(results.callsOverWindow).toBeLessThanOrEqual(none.callsOverWindow);
      expect(optimal.callsOverWindow).toBeLessThanOrEqual(results.callsOverWindow);
      if (results.callsOverWindow === none.callsOverWindow) expect(results.inputCost).toBeLessThanOrEqual(none.inputCost + 1e-12);
      if (optimal.callsOverWindow === results.callsOverWindow) expect(optimal.inputCost).toBeLessThanOrEqual(results.inputCost + 1e-12);
    }
  });

  it('fits the window where none does, for less than none costs, on the bundled Claude Code sessions', async () => {
    const claudeCode = (await bundledTranscripts('claude-code')).filter(
      (t) => (t.metadata?.source as { format?: string } | undefined)?.format === 'claude-code',
    );
    expect(claudeCode.length).toBeGreaterThan(3);
    for (const t of claudeCode) {
      const env = envFor(t, 'anthropic-5m', 20_000);
      const none = await run(t, {}, env);
      const optimal = await run(t, optimalPolicy.instantiate(env), env);
      expect(optimal.callsOverWindow).toBeLessThanOrEqual(none.callsOverWindow);
      if (optimal.callsOverWindow === none.callsOverWindow) expect(optimal.inputCost).toBeLessThanOrEqual(none.inputCost + 1e-12);
    }
  });
});
