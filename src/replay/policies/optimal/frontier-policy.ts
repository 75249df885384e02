import { TcompactError } from '../../../errors.js';
import type { Policy, PolicyEnv, PolicyInstance } from '../policy.js';
import { EditHindsight, type Prepared, frontierSchedule } from './frontier.js';
import { OPTIMAL, OPTIMAL_SPACE, compactionsOf, followSchedule, scheduleCosts } from './optimal-policy.js';
import { TranscriptPlan } from './plan.js';

/** `optimal@R`: the name of the cheapest schedule found whose hindsight recall is at least R. */
export const OPTIMAL_AT = /^optimal@(.*)$/;

/** A recall floor of `optimal@R`: a number above 0 and at most 1. */
export function parseRecallFloor(name: string, text: string): number {
  const r = /^(0(\.\d+)?|1(\.0*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!(r > 0 && r <= 1)) {
    throw new TcompactError('E_USAGE', `policy "${name}": the recall floor after ${OPTIMAL}@ must be a number above 0 and at most 1 (e.g. ${OPTIMAL}@0.95)`);
  }
  return r;
}

/** A transcript's plan and what its floors share, by the replay's env (one per transcript, given to every policy). */
const preparedByEnv = new WeakMap<PolicyEnv, { plan: TranscriptPlan; prepared: Required<Prepared> }>();

function preparedFor(env: PolicyEnv): { plan: TranscriptPlan; prepared: Required<Prepared> } {
  let out = preparedByEnv.get(env);
  if (!out) {
    const plan = new TranscriptPlan(env.transcript!, env.tokenizer, env.callGapSeconds, env.cache.perModel);
    const compactions = compactionsOf(plan, env, scheduleCosts(plan, env).base);
    out = { plan, prepared: { compactions, hindsight: new EditHindsight(plan, compactions, env), blind: { schedules: new Map() } } };
    preparedByEnv.set(env, out);
  }
  return out;
}

/**
 * `optimal@R`: the hindsight schedule of `optimal`'s edits held to a hindsight recall of at least R in each transcript
 * (see frontier.ts): the cheapest found by Lagrangian relaxation, with the bound no such schedule beats. `optimal`
 * stays the recall-blind floor.
 */
export function optimalAtPolicy(name: string): Policy {
  const m = OPTIMAL_AT.exec(name);
  const floor = parseRecallFloor(name, m ? m[1] : '');
  const canonical = `${OPTIMAL}@${floor}`;
  return {
    name: canonical,
    summary: `the cheapest hindsight schedule found that keeps at least ${floor * 100}% of the facts needed again, with its Lagrangian bound`,
    requires: ['checkpoint'],
    floor: false,
    instantiate(env: PolicyEnv): PolicyInstance {
      if (!env.transcript) return {};
      const { plan, prepared } = preparedFor(env);
      const found = frontierSchedule(plan, env, OPTIMAL_SPACE, floor, prepared);
      const frontier = {
        floor,
        feasible: found.feasible,
        inputCost: found.schedule.inputCost,
        overWindow: found.schedule.overWindow,
        bound: found.bound,
        probes: found.recall.probes,
        retained: found.recall.retained,
        points: found.points,
      };
      return { ...followSchedule(plan, found.schedule, found.compactions, env), figures: () => ({ frontier }) };
    },
  };
}
