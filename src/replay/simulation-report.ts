import type { LlmRunUsage } from '../llm/session.js';
import type { Groups } from '../report/groups.js';
import { type HindsightScore, addHindsightScore, emptyHindsightScore } from '../retention/hindsight.js';
import { type ProbeScore, addScore, emptyScore } from '../retention/score.js';
import { addInto } from './accumulate.js';
import type { CacheReport, ModelPricesReport } from './billing/cache-choice.js';
import type { Cost, Prices } from './billing/prices.js';
import { emptyRecordedUsage } from './billing/recorded-usage.js';
import type { TokenScale } from './billing/token-ratio.js';
import type { FidelitySummary } from './fidelity/fidelity-summary.js';
import { archiveBound } from './policies/optimal/frontier.js';
import type { PointResult, Policy } from './policies/policy.js';
import { type ArchiveInputs, type PolicyRun, RUN_MERGE, archiveInputs, countedOnce, emptyRunTotal, withoutCompactionCalls } from './policy-run.js';
import type { PricedUsage, TranscriptSimulation } from './transcript-replay.js';

export interface PolicyTotals extends Omit<PolicyRun, 'frontier'> {
  name: string;
  summary: string;
  /** 1 - billedInput / billedInput of `none`; 0 when nothing was billed. */
  reductionVsNone: number;
  /** Transcripts whose replay got stuck. */
  stuckTranscripts: number;
  /** `source` policies: what they kept at the source's compaction points, summed over the points. */
  atSourcePoints?: PointTotals;
  /** What it costs with caching above the floor (`optimal`), in US dollars, and why. Absent for the floor. */
  regret?: Regret;
  /** `optimal@R`: its plan over the transcripts, and the bound at its floor. */
  frontier?: FrontierTotals;
  /** The least hindsight recall of one transcript (1 for one it never edited with a fact needed again). */
  lowestRecall: number;
}

/**
 * `optimal@R` over the transcripts (see policies/optimal/frontier.ts), in planned input cost with caching (US
 * dollars): what its schedules cost, and the bound at R with the recall counted over the whole archive (no setting
 * whose edits keep R of the facts needed again over the archive, with no more calls over the window, costs less).
 * Its schedules meet R in each transcript, so their recall over the archive does too.
 */
export interface FrontierTotals {
  floor: number;
  transcripts: number;
  /** Transcripts where a schedule meeting the floor was found. */
  feasible: number;
  inputCost: number;
  bound: number;
  /**
   * The transcripts' own bounds summed: no setting whose edits keep R of the facts needed again in every transcript,
   * with no more calls over the window, costs less. At least `bound`: holding each transcript to R asks more than
   * holding the archive to it, and each transcript's bound is the least of its edit kinds' own (see frontier.ts).
   */
  eachBound: number;
}

/**
 * A policy's cost with caching above the floor's, split by cause: the part of its rewrites a gap over the TTL forced,
 * the part its edits caused, its compaction or summary calls (each above the floor's own), and the rest: the stale
 * tokens it kept reading at every call, and the rewrites the rules forced otherwise.
 */
export interface Regret {
  total: number;
  coldRewrites: number;
  editRewrites: number;
  compactionCalls: number;
  carried: number;
}

/** A `source` policy's figures at the source's compaction points, summed. */
export interface PointTotals {
  /** Points where the policy's compaction is known (for `source`, those with a recorded summary). */
  points: number;
  /** Prompt tokens just before and just after the compaction, summed over those points. */
  tokensBefore: number;
  tokensAfter: number;
  score: ProbeScore;
  hindsight: HindsightScore;
}

/** Every call's prompt size under each policy, for one transcript: the largest (by its whole prompt without compaction). */
export interface PromptTrace {
  id: string;
  file: string;
  line: number;
  /** By policy name: prompt tokens of each call, in call order. */
  prompts: Record<string, number[]>;
}

/** The source's compaction points replayed (all, known or not), by kind of mark. */
export interface SourcePointsReport {
  transcripts: number;
  points: number;
  withSummary: number;
  byKind: Record<string, number>;
  /** Points whose summary is encrypted (Codex): `source` keeps the recorded replacement history there. Absent when none. */
  opaque?: number;
}

/** Per group of the transcripts (source format, project): each policy's billed input, cost and reduction against `none`. */
export type ByGroup = Record<string, { transcripts: number; policies: Record<string, { billedInput: number; cost: Cost; reductionVsNone: number }> }>;

/** Transcripts with recorded usage: the recorded figures summed, beside the simulated `none` replay of the same transcripts. */
export interface RecordedReport {
  transcripts: number;
  /** By model too (`usage.byModel`), each at its model's rates. */
  usage: PricedUsage;
  simulatedNone: PolicyRun;
  /**
   * With the `source` policy: the replay of what the sessions did, their own compactions included but not their
   * compaction calls, which a source records apart (Claude Code: the `agent-acompact-*` subagent files, transcripts
   * of their own among the inputs).
   */
  simulatedSource?: PolicyRun;
  /** Absent when no transcript's source embedded subagent calls. */
  embedded?: EmbeddedReport;
}

/**
 * The subagent calls sources embedded beside their transcripts (Claude Code's progress records), never replayed. Those
 * of a subagent whose own transcript is among the inputs are counted there (`inOwnTranscripts`), not again.
 */
export interface EmbeddedReport {
  /** Subagents whose calls only the embedding transcript holds: their usage is the rest of the bill. */
  agents: number;
  usage: PricedUsage;
  inOwnTranscripts: { agents: number; calls: number };
}

export interface SimulationReport {
  /** Inputs of several source formats: per format, each policy's billed input, cost and reduction against `none`. */
  byFormat?: ByGroup;
  /** Inputs of two projects or more (transcriptProject): the same per project. */
  byProject?: ByGroup;
  tokenizer: string;
  window: number;
  thresholds: { warning: number; compaction: number; hardLimit: number };
  prices: Prices;
  cooldown: number;
  maxAttempts: number;
  basePrompt: number | 'recorded';
  /** Absent when 1: the replay counted with the tokenizer as it is. */
  tokenRatio?: number | 'recorded';
  /** With `tokenRatio: 'recorded'`: the archive's scale, for transcripts with too few clean intervals of their own. */
  tokenScaleFallback?: TokenScale;
  transcripts: number;
  policies: PolicyTotals[];
  recorded?: RecordedReport;
  /**
   * With recorded usage: how far the `source` replay departs from the record, over the transcripts that carry one
   * (each one's own in `perTranscript[].fidelity`).
   */
  fidelity?: FidelitySummary;
  perTranscript: TranscriptSimulation[];
  /** Absent when no transcript made a call. */
  trace?: PromptTrace;
  /** With `source` policies: the source's compaction points replayed. */
  sourcePoints?: SourcePointsReport;
  /** The LLM steps' usage when a model was given, without its timing (which varies from run to run). */
  llm?: Omit<LlmRunUsage, 'timing'>;
  /** The prompt-cache models used, with their rules and prices. */
  cache?: CacheReport;
  /** The rates each model was billed at, and the table entry they came from (absent: the flags and defaults). */
  modelPrices?: ModelPricesReport;
  /** With a model: the price its compaction calls were billed at, per million tokens. */
  compactionPricing?: { model: string; inPerMillion: number; outPerMillion: number; batch: boolean };
}

/** Each policy's runs summed over the transcripts, with its reduction against the first (`none`). */
export function policyTotals(policies: readonly Pick<Policy, 'name' | 'summary' | 'floor'>[], perTranscript: readonly TranscriptSimulation[]): PolicyTotals[] {
  const totals = policies.map((p) => {
    const run = emptyRunTotal();
    const archive = archiveInputs(perTranscript.map((t) => ({ id: t.id, run: t.policies[p.name] })));
    let stuck = 0;
    let lowestRecall = 1;
    for (const t of perTranscript) {
      addInto(run, countedOnce(t.policies[p.name], t.id, archive), RUN_MERGE);
      // A transcript the policy's totals leave out (a call it did not make) is not one it got stuck in.
      if (archive.replaced.has(t.id)) continue;
      if (t.policies[p.name].stuck) stuck++;
      const h = t.policies[p.name].hindsight?.overall;
      if (h && h.probes > 0) lowestRecall = Math.min(lowestRecall, h.retained / h.probes);
    }
    return { name: p.name, summary: p.summary, run, stuck, lowestRecall, archive };
  });
  const none = totals[0].run.billedInput;
  const floor = totals.find((_, i) => policies[i].floor)?.run;
  return totals.map((t, i) => {
    const { atPoints: _points, frontier: _frontier, ...run } = t.run;
    const out: PolicyTotals = {
      name: t.name,
      summary: t.summary,
      ...run,
      reductionVsNone: none > 0 ? 1 - t.run.billedInput / none : 0,
      stuckTranscripts: t.stuck,
      lowestRecall: t.lowestRecall,
    };
    const atPoints = pointTotals(t.name, perTranscript);
    if (atPoints) out.atSourcePoints = atPoints;
    const frontier = frontierTotals(t.name, perTranscript, t.archive);
    if (frontier) out.frontier = frontier;
    if (floor && !policies[i].floor) out.regret = regretOf(t.run, floor);
    return out;
  });
}

function regretOf(run: PolicyRun, floor: PolicyRun): Regret {
  const total = run.cost.withCache - floor.cost.withCache;
  const coldRewrites = run.rewriteCost.cold - floor.rewriteCost.cold;
  const editRewrites = run.rewriteCost.edits - floor.rewriteCost.edits;
  const compactionCalls = (run.compactionCalls?.cost ?? 0) - (floor.compactionCalls?.cost ?? 0);
  return { total, coldRewrites, editRewrites, compactionCalls, carried: total - coldRewrites - editRewrites - compactionCalls };
}

/**
 * `optimal@R`'s plans summed, with the archive's bound; undefined for another policy. Over the transcripts its totals
 * count: the bound is of the same calls as the pick.
 */
function frontierTotals(name: string, perTranscript: readonly TranscriptSimulation[], archive: ArchiveInputs): FrontierTotals | undefined {
  const plans = perTranscript.flatMap((t) => (t.policies[name].frontier && !archive.replaced.has(t.id) ? [t.policies[name].frontier] : []));
  if (plans.length === 0) return undefined;
  return {
    floor: plans[0].floor,
    transcripts: plans.length,
    feasible: plans.filter((p) => p.feasible).length,
    inputCost: plans.reduce((n, p) => n + p.inputCost, 0),
    bound: archiveBound(plans),
    eachBound: plans.reduce((n, p) => n + p.bound, 0),
  };
}

/** What a policy kept at the source's points (known ones), summed; undefined for a policy that reports no points. */
function pointTotals(name: string, perTranscript: readonly TranscriptSimulation[]): PointTotals | undefined {
  if (!perTranscript.some((t) => t.policies[name].atPoints !== undefined)) return undefined;
  const out: PointTotals = { points: 0, tokensBefore: 0, tokensAfter: 0, score: emptyScore(), hindsight: emptyHindsightScore() };
  for (const t of perTranscript) {
    for (const p of t.policies[name].atPoints ?? []) {
      if (!p.known) continue;
      out.points++;
      out.tokensBefore += p.tokensBefore;
      out.tokensAfter += p.tokensAfter;
      addScore(out.score, p.score);
      addHindsightScore(out.hindsight, p.hindsight);
    }
  }
  return out;
}

/** The points one policy replayed (all, known or not), by kind: the `source` policy's are the source's own. */
export function sourcePointsReport(points: readonly (readonly PointResult[])[]): SourcePointsReport {
  const out: SourcePointsReport = { transcripts: 0, points: 0, withSummary: 0, byKind: {} };
  for (const at of points) {
    if (at.length > 0) out.transcripts++;
    for (const p of at) {
      out.points++;
      if (p.known) out.withSummary++;
      if (p.opaque) out.opaque = (out.opaque ?? 0) + 1;
      for (const k of p.kinds) out.byKind[k] = (out.byKind[k] ?? 0) + 1;
    }
  }
  return out;
}

/**
 * Each policy's billed input and cost per group (`keys`: each transcript's source format, or its project), the groups
 * side by side; undefined unless the transcripts make two named groups or more.
 */
export function byGroup(
  policies: readonly string[],
  perTranscript: readonly TranscriptSimulation[],
  keys: readonly (string | undefined)[],
  grouping: (empty: () => ByGroup[string]) => Groups<ByGroup[string]>,
): ByGroup | undefined {
  const groups = grouping(() => ({ transcripts: 0, policies: {} }));
  const archives = new Map(policies.map((name) => [name, archiveInputs(perTranscript.map((t) => ({ id: t.id, run: t.policies[name] })))]));
  perTranscript.forEach((t, i) => {
    const g = groups.of(keys[i]);
    g.transcripts++;
    for (const name of policies) {
      const run = countedOnce(t.policies[name], t.id, archives.get(name)!);
      const into = (g.policies[name] ??= { billedInput: 0, cost: { withoutCache: 0, withCache: 0 }, reductionVsNone: 0 });
      into.billedInput += run.billedInput;
      into.cost.withoutCache += run.cost.withoutCache;
      into.cost.withCache += run.cost.withCache;
    }
  });
  const out = groups.result();
  for (const g of Object.values(out ?? {})) {
    const none = g.policies[policies[0]].billedInput;
    for (const p of Object.values(g.policies)) p.reductionVsNone = none > 0 ? 1 - p.billedInput / none : 0;
  }
  return out;
}

/** The record summed over the transcripts that carry one, beside their `none` (and `source`) replays. */
export function recordedReport(perTranscript: readonly TranscriptSimulation[], source: string | undefined): RecordedReport | undefined {
  const withUsage = perTranscript.filter((t) => t.recorded);
  if (withUsage.length === 0) return undefined;
  const usage: PricedUsage = {
    calls: 0,
    input: 0,
    uncachedInput: 0,
    cacheCreation: 0,
    cacheCreation1h: 0,
    cacheRead: 0,
    output: 0,
    firstCallInput: 0,
    cost: { withoutCache: 0, withCache: 0 },
    byModel: {},
  };
  const simulatedNone = emptyRunTotal();
  const simulatedSource = source === undefined ? undefined : emptyRunTotal();
  for (const t of withUsage) {
    addInto(usage, t.recorded!, RECORDED_MERGE);
    addInto(simulatedNone, t.policies.none, RUN_MERGE);
    if (simulatedSource) addInto(simulatedSource, withoutCompactionCalls(t.policies[source!]), RUN_MERGE);
  }
  const embedded = embeddedReport(perTranscript);
  return { transcripts: withUsage.length, usage, simulatedNone, ...(simulatedSource ? { simulatedSource } : {}), ...(embedded ? { embedded } : {}) };
}

const RECORDED_MERGE = {
  calls: 'sum',
  input: 'sum',
  uncachedInput: 'sum',
  cacheCreation: 'sum',
  cacheCreation1h: 'sum',
  cacheRead: 'sum',
  output: 'sum',
  firstCallInput: 'sum',
  cost: 'sum',
  byModel: 'sum',
  outputCounted: 'sum',
  midStreamCalls: 'sum',
  sourceCost: 'sum',
} as const;

/** The embedded subagent calls summed, each subagent once: not again when its own transcript is among the inputs. */
function embeddedReport(perTranscript: readonly TranscriptSimulation[]): EmbeddedReport | undefined {
  if (!perTranscript.some((t) => t.embedded)) return undefined;
  const ids = new Set(perTranscript.map((t) => t.id));
  const out: EmbeddedReport = {
    agents: 0,
    usage: { ...emptyRecordedUsage(), cost: { withoutCache: 0, withCache: 0 }, byModel: {} },
    inOwnTranscripts: { agents: 0, calls: 0 },
  };
  for (const t of perTranscript) {
    for (const { agentId: _agent, transcriptId, ...agent } of t.embedded ?? []) {
      if (transcriptId !== undefined && ids.has(transcriptId)) {
        out.inOwnTranscripts.agents++;
        out.inOwnTranscripts.calls += agent.calls;
        continue;
      }
      out.agents++;
      addInto(out.usage, agent, RECORDED_MERGE);
    }
  }
  return out;
}
