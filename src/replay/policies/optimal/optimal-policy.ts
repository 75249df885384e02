import { strategyCompaction, withFocus } from '../../../context/strategy-compaction.js';
import type { Message } from '../../../model/message.js';
import { contextTokens } from '../../../tokens/breakdown.js';
import type { Policy, PolicyEnv, PolicyInstance } from '../policy.js';
import { type PlannedCompaction, TranscriptPlan } from './plan.js';
import { type EditKind, type Schedule, type ScheduleCosts, planSchedule } from './schedule.js';

/** The policy name of the hindsight-optimal schedule. */
export const OPTIMAL = 'optimal';

/** The policy name of the hindsight-optimal schedule among those that clear tool results only. */
export const OPTIMAL_RESULTS = 'optimal-results';

/** The edit kinds the schedule chooses among: the tool uses kept whole after a clearing, inputs cleared or not. */
export const OPTIMAL_EDIT_KINDS: readonly EditKind[] = [1, 3, 10].flatMap((keep) => [false, true].map((inputs) => ({ keep, inputs })));

/** The edits a schedule is planned from: its edit kinds, and whether it may compact. */
export interface ScheduleSpace {
  kinds: readonly EditKind[];
  compact: boolean;
}

/** Every edit `optimal` considers. */
export const OPTIMAL_SPACE: ScheduleSpace = { kinds: OPTIMAL_EDIT_KINDS, compact: true };
/**
 * The edits that keep what a session is most likely to need again: tool results cleared, every call's input kept (it
 * names the file or command), no compaction.
 */
export const RESULTS_ONLY_SPACE: ScheduleSpace = { kinds: OPTIMAL_EDIT_KINDS.filter((k) => !k.inputs), compact: false };

/**
 * The compactions the schedule may make: at a call whose prompt passes half the window with every tool result but the
 * last cleared (below that, clearing keeps the prompt in the window), `checkpoint` over everything before the call (the
 * deterministic stand-in for a summary the threshold policies use too), keeping the leading system messages and the
 * protected tail. Undefined at the other calls, and where the output does not have that shape (nothing to compact).
 */
export function compactionsOf(plan: TranscriptPlan, env: PolicyEnv, base: number): (PlannedCompaction | undefined)[] {
  const handler = strategyCompaction({ strategies: ['checkpoint'], tokenizer: env.tokenizer, config: withFocus({ ...env.tail }, env.focus) });
  const lead = plan.leadingSystem;
  return plan.calls.map((call) => {
    if (base + plan.cumTokens[call.reply] - plan.clearable(call.uses - 1) <= env.window / 2) return undefined;
    const history = plan.messages.slice(0, call.reply);
    const out = handler({ messages: history, tokens: 0, window: env.window, reason: 'requested' });
    if (out instanceof Promise) return undefined;
    const kept = out.messages;
    if (kept.length <= lead + 1 || kept.length >= history.length) return undefined;
    for (let i = 0; i < lead; i++) if (kept[i] !== history[i]) return undefined;
    const tail = history.length - (kept.length - lead - 1);
    for (let i = lead + 1; i < kept.length; i++) if (kept[i] !== history[tail + i - lead - 1]) return undefined;
    const firstUse = plan.uses.findIndex((u) => u.call >= tail);
    return { summary: kept[lead], summaryTokens: plan.tokens(kept[lead]), tail, firstUse: firstUse < 0 ? plan.uses.length : firstUse };
  });
}

/** What the schedule's prompts cost besides their messages, as the replay bills them. */
export function scheduleCosts(plan: TranscriptPlan, env: PolicyEnv): ScheduleCosts {
  const base = (env.tools && env.tools.length > 0 ? env.tokenizer.count(JSON.stringify(env.tools)) : 0) + env.basePrompt;
  return {
    window: env.window,
    base,
    cache: env.cache,
    prices: (t: number) => env.pricesAt(plan.calls[t].messageIndex),
    warmBase: (t: number) => env.warmBase?.(plan.calls[t].messageIndex) ?? 0,
  };
}

/** The schedule made of the edits of `space` with the fewest calls over the window, then the least input cost with caching. */
export function optimalSchedule(
  plan: TranscriptPlan,
  env: PolicyEnv,
  space: ScheduleSpace = OPTIMAL_SPACE,
): { schedule: Schedule; compactions: (PlannedCompaction | undefined)[] } {
  const costs = scheduleCosts(plan, env);
  const compactions = space.compact ? compactionsOf(plan, env, costs.base) : plan.calls.map(() => undefined);
  let best: Schedule | undefined;
  for (const kind of space.kinds) {
    const s = planSchedule(plan, kind, compactions, costs);
    if (!best || s.overWindow < best.overWindow || (s.overWindow === best.overWindow && s.inputCost < best.inputCost)) best = s;
  }
  return { schedule: best!, compactions };
}

/** A policy instance that makes the prompts `schedule` plans, however it was planned. */
export function followSchedule(
  plan: TranscriptPlan,
  schedule: Schedule,
  compactions: readonly (PlannedCompaction | undefined)[],
  env: PolicyEnv,
): PolicyInstance {
  const promptAt = (t: number): Message[] => plan.promptAt(compactions, schedule.kind.inputs, t, schedule.prompts[t].segment, schedule.prompts[t].cleared);
  let call = 0;
  return {
    microIsCompaction: true,
    micro: ({ messages, tokens }) => {
      const t = call++;
      if (t >= schedule.prompts.length) return { messages: [...messages], tokens };
      const next = promptAt(t);
      if (next.length === messages.length && next.every((m, i) => m === messages[i])) return { messages: [...messages], tokens };
      return { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + env.basePrompt };
    },
  };
}

function schedulePolicy(name: string, summary: string, space: ScheduleSpace, floor: boolean): Policy {
  return {
    name,
    summary,
    requires: space.compact ? ['checkpoint'] : [],
    floor,
    instantiate(env: PolicyEnv): PolicyInstance {
      if (!env.transcript) return {};
      const plan = new TranscriptPlan(env.transcript, env.tokenizer, env.callGapSeconds, env.cache.perModel);
      const { schedule, compactions } = optimalSchedule(plan, env, space);
      return followSchedule(plan, schedule, compactions, env);
    },
  };
}

/**
 * `optimal`: the hindsight-optimal schedule, the floor every policy is measured against. Knowing the whole transcript,
 * it plans (schedule.ts) when to clear the tool uses older than the last few (results, inputs too or not) and when to
 * compact, so that every prompt fits the window at the least cost with caching under the replay's cache model; the
 * replay then bills that schedule like any policy's. Its clears read `[tool result cleared]`, as Anthropic's do.
 */
export const optimalPolicy: Policy = schedulePolicy(
  OPTIMAL,
  'the hindsight-optimal schedule: clears and compactions planned with the whole transcript known, the least cost with caching within the window',
  OPTIMAL_SPACE,
  true,
);

/**
 * `optimal-results`: the same plan over results-only clears, with no compaction. Clearing inputs and compacting remove
 * what sessions need again (the file or command a call names), so this is the floor for settings held to a recall
 * floor, as tune's recommendation is.
 */
export const optimalResultsPolicy: Policy = schedulePolicy(
  OPTIMAL_RESULTS,
  'the hindsight-optimal schedule among results-only clears (inputs kept, no compaction)',
  RESULTS_ONLY_SPACE,
  false,
);
