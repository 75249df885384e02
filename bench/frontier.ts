/**
 * What the recall frontier costs beside the hindsight-optimal schedule it relaxes: on the largest Claude Code sessions,
 * the CPU time of `optimal`'s program (the recall-blind floor: one program per edit kind) and of tune's four floors of
 * `optimal@R` (each a search over the price of a fact lost, one program per edit kind per price tried, the floors
 * sharing the transcript's plan, compactions, edit hindsight and recall-blind schedules, as tune's replay shares them).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readInputs } from '../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../src/io/line-reader.js';
import type { Transcript } from '../src/model/transcript.js';
import { CACHE_RULES } from '../src/provider/cache-rules.js';
import { pricesFor } from '../src/replay/billing/prices.js';
import { EditHindsight, RECALL_FLOORS, frontierSchedule } from '../src/replay/policies/optimal/frontier.js';
import { OPTIMAL_SPACE, compactionsOf, optimalSchedule, scheduleCosts } from '../src/replay/policies/optimal/optimal-policy.js';
import { TranscriptPlan } from '../src/replay/policies/optimal/plan.js';
import type { PolicyEnv } from '../src/replay/policies/policy.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';
import { largestSession } from './lib/check-latency.js';
import { BUNDLED } from './lib/paths.js';
import type { Benchmark, BenchOutput, Cell } from './lib/results.js';

/** The window of the replay's headline figures, which the largest sessions outgrow, so the programs must edit. */
const WINDOW = 128_000;

/** CPU milliseconds (user + system) of `run`. */
function cpuMs(run: () => void): number {
  const t0 = process.cpuUsage();
  run();
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

function envFor(t: Transcript): PolicyEnv {
  const cache = CACHE_RULES['anthropic-5m'];
  const prices = pricesFor(cache, { input: 5, output: 25 });
  return {
    tokenizer: getTokenizer('o200k_base'),
    window: WINDOW,
    basePrompt: 0,
    cooldown: 0,
    maxAttempts: 3,
    transcript: t,
    cache,
    pricesAt: () => prices,
    callGapSeconds: 10,
  };
}

interface FrontierCost {
  session: string;
  calls: number;
  optimalMs: number;
  floorsMs: number;
  /** Prices tried over the four floors (each one program per edit kind). */
  prices: number;
}

function measure(name: string, t: Transcript): FrontierCost {
  const env = envFor(t);
  const plan = new TranscriptPlan(t, env.tokenizer, env.callGapSeconds, false);
  const optimalMs = cpuMs(() => optimalSchedule(plan, env));
  let prices = 0;
  const floorsMs = cpuMs(() => {
    const compactions = compactionsOf(plan, env, scheduleCosts(plan, env).base);
    const prepared = { compactions, hindsight: new EditHindsight(plan, compactions, env), blind: { schedules: new Map() } };
    for (const floor of RECALL_FLOORS) prices += frontierSchedule(plan, env, OPTIMAL_SPACE, floor, prepared).points.length;
  });
  return { session: name, calls: plan.calls.length, optimalMs, floorsMs, prices };
}

async function sessionsOf(dir: string): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([dir], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) if (item.kind === 'transcript') out.push(item.transcript);
  return out;
}

export const frontierBench: Benchmark = {
  name: 'frontier',
  title: "The recall frontier's cost beside the hindsight-optimal schedule, largest Claude Code sessions (one core, in memory)",
  description:
    "CPU time of `optimal`'s program and of tune's four floors of `optimal@R` (0.80, 0.90, 0.95, 0.99) on the largest bundled Claude Code session and, with TCOMPACT_CORPUS set, the largest spotter session; --quick times the bundled session only.",
  entry: import.meta.url,
  async run({ quick, log }): Promise<BenchOutput> {
    const folders = [{ name: 'claude-code (bundled)', dir: join(BUNDLED, 'claude-code') }];
    const corpus = process.env.TCOMPACT_CORPUS;
    const spotter = corpus === undefined ? undefined : join(resolve(corpus), 'spotter', 'files');
    if (!quick && spotter !== undefined && existsSync(spotter)) folders.push({ name: 'spotter (TCOMPACT_CORPUS)', dir: spotter });
    const results: FrontierCost[] = [];
    for (const f of folders) {
      const t = largestSession(await sessionsOf(f.dir));
      if (!t) continue;
      log(`frontier: ${f.name}, ${t.id}`);
      results.push(measure(`${f.name}, largest session`, t));
    }
    const rows: Cell[][] = results.map((r) => [r.session, r.calls, r.optimalMs, r.floorsMs, r.prices, r.optimalMs > 0 ? r.floorsMs / r.optimalMs : null]);
    return {
      params: { window: WINDOW, cache: 'anthropic-5m', floors: RECALL_FLOORS, sessions: results.map((r) => r.session) },
      results,
      tables: [
        {
          title: "The recall frontier's cost: tune's four floors of optimal@R beside optimal, per session",
          columns: ['session', 'calls', 'optimal (ms CPU)', 'four floors (ms CPU)', 'prices tried', 'floors / optimal'],
          rows,
          notes: [
            "Each price tried is one program per edit kind (six); the floors share the transcript's plan, compactions, edit hindsight and recall-blind schedules, as tune's replay does. The four floors' time includes their compactions and the hindsight of the edits they weigh.",
          ],
        },
      ],
      ratios:
        results.length > 0
          ? [{ name: `${results[results.length - 1].session}: four floors / optimal, CPU`, value: rows[rows.length - 1][5] as number | null }]
          : [],
    };
  },
};
