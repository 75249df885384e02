import type { HindsightScore } from '../retention/hindsight.js';
import type { MergeRules } from './accumulate.js';
import type { Cost } from './billing/prices.js';
import type { CallTally, FrontierFigures, PointResult } from './policies/policy.js';
import { type ModelBill, type ReplayStats, emptyReplayStats } from './replay.js';

/**
 * The model calls a policy's compactions made: the summarizer's prompts and answers, billed beside the agent's own
 * calls (and included in its costs). Our LLM steps at the `--model`'s price (its list price when known, else its rates
 * in the replay's price table; with `batch`, the Batch API's); the source's own summaries at the prices of the model
 * that answered the call after the point.
 */
export interface CompactionCalls extends CallTally {
  /**
   * Of these, the source's summary calls that a transcript of their own logs (Claude Code's `agent-acompact-*.jsonl`),
   * by that transcript's id: over an archive that holds it, its replay bills them, and the totals not again here.
   */
  loggedApart?: Record<string, CallTally>;
  /** In totals over an archive: the calls left out for being counted in their own transcripts among the inputs. */
  inOwnTranscripts?: CallTally;
  /**
   * In totals over an archive, `source:STRATEGY`: the source's summary calls that our strategy took the place of, as
   * their own transcripts among the inputs (the compaction agents' files) replay them, left out of the totals.
   */
  replacedInOwnTranscripts?: CallTally;
}

/** One model's calls in a replay, priced at its prices. */
export type ModelRun = ModelBill & { cost: Cost };

/** One transcript's replay under one policy, priced; summed over transcripts in the reports. */
export type PolicyRun = Omit<ReplayStats, 'byModel'> & {
  /**
   * The calls by the model each is billed as, each at its model's prices: their costs add up to `cost` without the
   * compaction calls'.
   */
  byModel: Record<string, ModelRun>;
  cost: Cost;
  /** What its rewrites cost above reading the same tokens, in US dollars, by cause (see ReplayStats.rewritten). */
  rewriteCost: { cold: number; edits: number; other: number };
  /** Absent when the policy's compactions asked no model. */
  compactionCalls?: CompactionCalls;
  /**
   * At each compaction the policy made, the facts of before it that the session used again after it (see
   * retention/hindsight.ts), retained by the context it left. Absent when the policy never compacted.
   */
  hindsight?: HindsightScore & { points: number };
  /** `source` policies: what the policy kept at each of the source's compaction points. */
  atPoints?: PointResult[];
  /** `optimal@R`: its plan and bound. */
  frontier?: FrontierFigures;
  /**
   * The transcripts whose calls are the source's summary calls (Claude Code's compaction agents' files), under a policy
   * that does not reproduce the source's compactions: its own compactions, or none, take their place, so an archive's
   * totals do not bill those transcripts (see countedOnce).
   */
  replacesCallsOf?: string[];
};

/** How each figure of a run adds into a total over transcripts. */
export const RUN_MERGE: MergeRules<PolicyRun> = {
  calls: 'sum',
  billedInput: 'sum',
  cachedInput: 'sum',
  cacheWrites: 'sum',
  outputTokens: 'sum',
  compactions: 'sum',
  microCompactions: 'sum',
  peakPrompt: 'max',
  firstPrompt: 'sum',
  callsOverHardLimit: 'sum',
  callsOverWindow: 'sum',
  stuck: 'any',
  rewritten: 'sum',
  byModel: 'sum',
  cost: 'sum',
  rewriteCost: 'sum',
  compactionCalls: 'sum',
  hindsight: 'sum',
  // Summed per point in the source sections, not per run.
  atPoints: 'apart',
  // The bound over an archive is not a sum of bounds (see optimal/frontier.ts, archiveBound).
  frontier: 'apart',
  // Read over the archive's inputs, not added up (see archiveInputs).
  replacesCallsOf: 'apart',
};

/** The zero a total over transcripts starts from, its fields in the order the reports list them. */
export function emptyRunTotal(): PolicyRun {
  const { cacheWrites, rewritten, byModel: _byModel, ...stats } = emptyReplayStats();
  return { ...stats, cost: { withoutCache: 0, withCache: 0 }, cacheWrites, rewritten, rewriteCost: { cold: 0, edits: 0, other: 0 }, byModel: {} };
}

/** A run without the cost of its compaction calls. */
export function withoutCompactionCalls(r: PolicyRun): PolicyRun {
  if (!r.compactionCalls) return r;
  const { compactionCalls, ...rest } = r;
  return { ...rest, cost: { withoutCache: r.cost.withoutCache - compactionCalls.cost, withCache: r.cost.withCache - compactionCalls.cost } };
}

/** What an archive's totals need to know of the other transcripts to count one transcript's run once. */
export interface ArchiveInputs {
  /** The transcripts among the inputs, by id, with their runs under the policy. */
  inputs: ReadonlyMap<string, PolicyRun>;
  /** The transcripts among the inputs whose calls are the source's summary calls that the policy did not make. */
  replaced: ReadonlySet<string>;
}

/** The archive `runs` (one policy's, one per transcript, by id) make: see ArchiveInputs. */
export function archiveInputs(runs: readonly { id: string; run: PolicyRun }[]): ArchiveInputs {
  const inputs = new Map(runs.map((r) => [r.id, r.run]));
  const replaced = new Set<string>();
  for (const { run } of runs) for (const id of run.replacesCallsOf ?? []) if (inputs.has(id)) replaced.add(id);
  return { inputs, replaced };
}

/** A run's calls as one tally: what a compaction agent's transcript bills for the summary call it logs. */
function tallyOf(r: PolicyRun): CallTally {
  return { calls: r.calls, input: r.billedInput, output: r.outputTokens, cost: r.cost.withCache };
}

/** `into` with `t` added (`sign` 1) or taken out (-1), in place. */
function addTally(into: CallTally, t: CallTally, sign: 1 | -1 = 1): CallTally {
  into.calls += sign * t.calls;
  into.input += sign * t.input;
  into.output += sign * t.output;
  into.cost += sign * t.cost;
  return into;
}

/**
 * A transcript's run (`id`'s) as an archive's totals count it: without the compaction calls that a transcript among
 * the archive's inputs logs as its own, which that transcript's replay bills (see CompactionCalls.loggedApart); and
 * nothing of a compaction agent's transcript under a policy that did not make the source's compaction (its run is that
 * call: see PolicyRun.replacesCallsOf), but that call named in `compactionCalls.replacedInOwnTranscripts`. Either way
 * the call is named as its own transcript's replay bills it, so both name it alike.
 */
export function countedOnce(r: PolicyRun, id: string, archive: ArchiveInputs): PolicyRun {
  if (archive.replaced.has(id)) {
    return { ...emptyRunTotal(), compactionCalls: { calls: 0, input: 0, output: 0, cost: 0, replacedInOwnTranscripts: tallyOf(r) } };
  }
  const calls = r.compactionCalls;
  if (!calls?.loggedApart) return r;
  const { loggedApart, ...rest } = calls;
  const kept: CompactionCalls = { ...rest };
  let cost = 0;
  for (const [logger, apart] of Object.entries(loggedApart)) {
    const own = archive.inputs.get(logger);
    if (!own) continue;
    // The session's estimate of the call comes out of its run; the call is named as its own transcript bills it.
    addTally(kept, apart, -1);
    cost += apart.cost;
    addTally((kept.inOwnTranscripts ??= { calls: 0, input: 0, output: 0, cost: 0 }), tallyOf(own));
  }
  // All of them counted apart: none left here, not a remainder of rounding.
  if (kept.calls === 0) Object.assign(kept, { input: 0, output: 0, cost: 0 });
  return { ...r, compactionCalls: kept, cost: { withoutCache: r.cost.withoutCache - cost, withCache: r.cost.withCache - cost } };
}
