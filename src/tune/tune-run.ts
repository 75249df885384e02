import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { TcompactError, writeError } from '../errors.js';
import { makeDir } from '../io/make-dir.js';
import { parseConfig } from '../model/parse.js';
import type { Transcript } from '../model/transcript.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { Cost } from '../replay/billing/prices.js';
import { archiveInputs } from '../replay/policy-run.js';
import { ReplayPool } from '../replay/replay-pool.js';
import { type ReplayOptionsInput, ReplayOptionsSchema } from '../replay/replay-options.js';
import { scalesCounts } from '../replay/billing/token-ratio.js';
import { type ArchiveFallbackOptions, ArchiveFallbacks } from '../replay/archive-fallbacks.js';
import { Simulation } from '../replay/simulation.js';
import type { PolicyTotals } from '../replay/simulation-report.js';
import type { FidelitySummary } from '../replay/fidelity/fidelity-summary.js';
import type { TranscriptReplay } from '../replay/transcript-replay.js';
import { type GridContext, type TuneCandidate, neededTools, tuneCandidates } from './candidates.js';
import { WarmRuns } from './warm-runs.js';
import { type BoundDistance, FRONTIER_POLICIES, type FrontierRow, againstBound, frontierRows } from './frontier.js';
import { defaultCacheModel } from '../replay/billing/cache-choice.js';
import { recordedUsage } from '../replay/billing/recorded-usage.js';
import { OPTIMAL, OPTIMAL_RESULTS } from '../replay/policies/optimal/optimal-policy.js';
import type { CacheModelName } from '../provider/cache-rules.js';
import { usdShort } from '../report/format.js';
import { type ExportRuntime, type RuntimeExport, runtimeExports } from './exports.js';
import { type ToolUsage, ToolUsageTally } from './tool-usage.js';

/** What `tune` replays with: the replay's options it shares with `simulate`, and its own. Every default is here. */
export const TuneOptionsSchema = ReplayOptionsSchema.pick({
  window: true,
  prices: true,
  modelPrices: true,
  cache: true,
  callGapSeconds: true,
  basePrompt: true,
  tokenRatio: true,
}).extend({
  /** The least hindsight recall a recommendation may have. @default 0.95 */
  recallFloor: z.number().min(0).max(1).default(0.95),
  /** DIR: the candidates' policy files go to DIR/candidates, the exports to DIR/exports. */
  outDir: z.string().min(1),
  /**
   * Only these candidates of the grid, by name (as in DIR/candidates/): the baselines and the frontier are replayed as
   * ever, and the recommendation is the best of these. @default the whole grid
   */
  candidates: z.array(z.string().min(1)).min(1).optional(),
  /** Replay on this many worker threads (the figures are the same); in this thread when absent. @default none */
  workers: z.number().int().min(1).optional(),
});
export type TuneOptions = z.output<typeof TuneOptionsSchema>;

/** `runTune`'s options: tune's (validated there) with the counter, and what to tell of the passes. */
export type TuneInput = z.input<typeof TuneOptionsSchema> & {
  tokenizer: Tokenizer;
  /** Told what is being done, after each transcript of each pass. */
  progress?: (text: string) => void;
};

/** One replayed setting: what it costs and what it keeps of what the session needed later. */
export interface TuneResult {
  name: string;
  policy: { runtime: 'builtin' | TuneCandidate['runtime'] | ExportRuntime; file?: string; settings?: unknown };
  cost: Cost;
  billedInput: number;
  /** Hindsight probes retained / probes at the setting's edits; 1 when it never edited (nothing was lost). */
  hindsightRecall: number;
  hindsight: { points: number; probes: number; retained: number };
  /** Not beaten on both cost with caching and recall by another candidate. */
  frontier?: boolean;
  /** The least hindsight recall of one transcript: with it at a floor, the setting meets that floor in every transcript. */
  lowestRecall: number;
  /**
   * Its cost over the recall frontier's bound at the highest floor its recall reaches, and over the bound with each
   * transcript held to the floor at the highest floor its lowest recall reaches (see frontier.ts).
   */
  againstBound?: BoundDistance & { each?: BoundDistance };
}

export interface TuneReport {
  transcripts: number;
  window: number;
  /** Absent when 1 (see TuneOptions.tokenRatio). */
  tokenRatio?: number | 'recorded';
  recallFloor: number;
  tools: ToolUsage[];
  /** Tools the exclusion candidates spare: their output was needed again at least half the time. */
  neededTools: string[];
  /** The cache the candidates were tuned to, and the calls it stays warm for after a call, on this archive. */
  grid: GridContext;
  /**
   * No compaction; ContextManager's defaults; the hindsight-optimal schedule, the floor of what any setting can cost;
   * and the same among clears of tool results only, the floor of settings that keep what the sessions need again.
   */
  baselines: { none: TuneResult; default: TuneResult; optimal: TuneResult; optimalResults: TuneResult };
  candidates: TuneResult[];
  /**
   * The cheapest candidate with caching whose recall meets the floor; else the one that keeps most (`meetsFloor`
   * false). `beatsNone` false: it costs no less than `none`, which is then the advice (no compaction at all).
   */
  recommended: TuneResult & { meetsFloor: boolean; beatsNone: boolean };
  /**
   * The recall frontier: at floor 0 the recall-blind `optimal`, then at each of RECALL_FLOORS the cheapest schedule of
   * its edits found (`optimal@R`, replayed) and the bound none can beat, with caching.
   */
  frontier: FrontierRow[];
  exports: (TuneResult & { runtime: ExportRuntime; exact: boolean; note?: string; load: string; adapter?: string; file: string })[];
  /** With recorded usage: how far the archive's `source` replay departs from the record (see replay/fidelity/). */
  fidelity?: FidelitySummary;
}

/** Transcripts to read, as many times as tune needs to pass over them (the archive is never held in memory). */
export type TranscriptSource = () => AsyncIterable<{ transcript: Transcript; file: string; line: number; format?: string }>;

function resultOf(totals: PolicyTotals, name: string, policy: TuneResult['policy']): TuneResult {
  const h = totals.hindsight;
  const probes = h?.overall.probes ?? 0;
  const retained = h?.overall.retained ?? 0;
  return {
    name,
    policy,
    cost: totals.cost,
    billedInput: totals.billedInput,
    hindsightRecall: probes === 0 ? 1 : retained / probes,
    hindsight: { points: h?.points ?? 0, probes, retained },
    lowestRecall: totals.lowestRecall,
  };
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`).catch((err: unknown) => {
    throw writeError(err, path);
  });
}

/** Tune's passes: the archive replayed under some policies, each policy's totals by name. */
interface Pass {
  options: TuneOptions;
  tokenizer: Tokenizer;
  progress?: (text: string) => void;
  pool: ReplayPool | undefined;
  /** What the replay takes from the whole archive (its token scale and base prompts), measured in the first pass. */
  fallbacks?: ArchiveFallbackOptions;
}

/** A pass's figures: each policy's totals by name, and with recorded usage how far the `source` replay departs from it. */
interface PassResult {
  totals: Map<string, PolicyTotals>;
  /**
   * By policy name, the transcripts its totals count: not the compaction agents' files whose call it did not make
   * (see countedOnce).
   */
  counted: Map<string, number>;
  fidelity?: FidelitySummary;
}

async function replayAll(source: TranscriptSource, policies: string[], pass: Pass, what: string, { fidelity = false } = {}): Promise<PassResult> {
  const { options, tokenizer, pool } = pass;
  const settings: ReplayOptionsInput = {
    policies,
    window: options.window,
    prices: options.prices,
    ...(options.modelPrices ? { modelPrices: options.modelPrices } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
    callGapSeconds: options.callGapSeconds,
    basePrompt: options.basePrompt,
    tokenRatio: options.tokenRatio,
    ...pass.fallbacks,
    // Masking on every call loses what it masks, as a clear does: both are scored where they edit.
    hindsightAtMicro: true,
    fidelity,
  };
  const simulation = new Simulation({ ...settings, tokenizer });
  let done = 0;
  const accept = (replayed: TranscriptReplay) => {
    simulation.accept(replayed);
    done++;
    pass.progress?.(`${what}: ${done} transcripts replayed`);
  };
  if (pool) {
    const { name, engine } = tokenizer;
    await pool.replayAll({ ...settings, tokenizer: { name, engine } }, replayItems(source), accept);
  } else {
    for await (const item of source()) accept(await simulation.replayTranscript(item.transcript, sourceOf(item)));
  }
  const report = simulation.report();
  const counted = new Map(
    report.policies.map((p) => [
      p.name,
      report.perTranscript.length - archiveInputs(report.perTranscript.map((t) => ({ id: t.id, run: t.policies[p.name] }))).replaced.size,
    ]),
  );
  return { totals: new Map(report.policies.map((p) => [p.name, p])), counted, ...(report.fidelity ? { fidelity: report.fidelity } : {}) };
}

function sourceOf(item: { file: string; line: number; format?: string }): { file: string; line: number; format?: string } {
  return { file: item.file, line: item.line, ...(item.format === undefined ? {} : { format: item.format }) };
}

async function* replayItems(source: TranscriptSource): AsyncIterable<{ transcript: Transcript; source: ReturnType<typeof sourceOf> }> {
  for await (const item of source()) yield { transcript: item.transcript, source: sourceOf(item) };
}

/** The grid, or the candidates of it named (E_CONFIG naming the grid's names when one is not in it). */
function chosenCandidates(grid: TuneCandidate[], names: readonly string[] | undefined): TuneCandidate[] {
  if (names === undefined) return grid;
  const unknown = names.filter((n) => !grid.some((c) => c.name === n));
  if (unknown.length > 0)
    throw new TcompactError(
      'E_CONFIG',
      `tune options: no candidate ${unknown.join(', ')} in the grid of this archive and window: ${grid.map((c) => c.name).join(', ')}`,
    );
  return grid.filter((c) => names.includes(c.name));
}

/** Candidates not beaten on both axes: no other is at most as dear with caching and keeps at least as much, one strictly. */
function markFrontier(results: TuneResult[]): void {
  for (const r of results) {
    r.frontier = !results.some(
      (o) =>
        o !== r &&
        o.cost.withCache <= r.cost.withCache &&
        o.hindsightRecall >= r.hindsightRecall &&
        (o.cost.withCache < r.cost.withCache || o.hindsightRecall > r.hindsightRecall),
    );
  }
}

function recommend(results: readonly TuneResult[], floor: number): TuneResult & { meetsFloor: boolean } {
  const byCost = (a: TuneResult, b: TuneResult) => a.cost.withCache - b.cost.withCache || a.billedInput - b.billedInput || (a.name < b.name ? -1 : 1);
  const meeting = results.filter((r) => r.hindsightRecall >= floor).sort(byCost);
  if (meeting.length > 0) return { ...meeting[0], meetsFloor: true };
  const best = [...results].sort((a, b) => b.hindsightRecall - a.hindsightRecall || byCost(a, b))[0];
  return { ...best, meetsFloor: false };
}

/**
 * `tune`: tool usage over the archive, then every candidate setting replayed as its runtime applies it (the policy
 * files it writes are what the replay reads), the cheapest with caching that keeps `recallFloor` of what the sessions
 * needed later, and that setting exported for each runtime, each export replayed in turn so its figures are its own.
 */
export async function runTune(source: TranscriptSource, { tokenizer, progress, ...input }: TuneInput): Promise<TuneReport> {
  const options = parseConfig(TuneOptionsSchema, input, { source: 'tune options' });
  const { name, engine } = tokenizer;
  const pool = options.workers === undefined ? undefined : new ReplayPool(options.workers, { name, engine });
  try {
    return await tune(source, { options, tokenizer, progress, pool });
  } finally {
    await pool?.destroy();
  }
}

async function tune(source: TranscriptSource, pass: Pass): Promise<TuneReport> {
  const { options, tokenizer } = pass;
  const usageTally = new ToolUsageTally(tokenizer);
  const fallbacks = new ArchiveFallbacks(tokenizer, options);
  const caches = new Map<CacheModelName, number>();
  const warm = new WarmRuns(options.callGapSeconds);
  let transcripts = 0;
  for await (const item of source()) {
    const { transcript } = item;
    usageTally.add(transcript);
    const cache = options.cache ?? defaultCacheModel(transcript, recordedUsage(transcript));
    caches.set(cache, (caches.get(cache) ?? 0) + 1);
    warm.add(transcript, cache);
    fallbacks.add(item);
    transcripts++;
    pass.progress?.(`tool usage: ${transcripts} transcripts read`);
  }
  // What the replay takes from the whole archive, as simulate's does.
  pass.fallbacks = fallbacks.options();
  const tools = usageTally.usage();
  // The candidates are tuned to the archive's most common cache (`--cache` when given).
  const cache = [...caches].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'anthropic-5m';
  const grid: GridContext = { cache, expectedCalls: warm.expectedCalls(cache) };
  const candidates = chosenCandidates(tuneCandidates(options.window, tools, tokenizer.name, grid), options.candidates);
  const candidatesDir = join(options.outDir, 'candidates');
  await makeDir(candidatesDir);
  const policyOf = new Map<string, { candidate: TuneCandidate; policy: string; file: string }>();
  for (const c of candidates) {
    const file = join(candidatesDir, `${c.name}.json`);
    await writeJson(file, c.runtime === 'anthropic' ? { edits: [c.edit] } : c.options);
    policyOf.set(c.name, { candidate: c, policy: `${c.runtime === 'anthropic' ? 'anthropic' : 'config'}:${file}`, file });
  }
  // The first pass also holds the `source` replay against the record, where the archive recorded usage.
  const { totals, counted, fidelity } = await replayAll(
    source,
    ['default', OPTIMAL_RESULTS, ...FRONTIER_POLICIES, ...[...policyOf.values()].map((p) => p.policy)],
    pass,
    `${candidates.length} settings`,
    {
      fidelity: true,
    },
  );
  const results = candidates.map((c) => {
    const p = policyOf.get(c.name)!;
    return resultOf(totals.get(p.policy)!, c.name, {
      runtime: c.runtime,
      file: join('candidates', `${c.name}.json`),
      settings: c.runtime === 'anthropic' ? c.edit : c.options,
    });
  });
  markFrontier(results);
  // The blind row over the transcripts its totals count, as the `optimal@R` rows.
  const frontier = frontierRows(totals, (t) => resultOf(t, t.name, { runtime: 'builtin' }).hindsightRecall, counted.get(OPTIMAL) ?? transcripts);
  const placed = (r: TuneResult): TuneResult => {
    const at = againstBound(r.cost.withCache, r.hindsightRecall, frontier, r.lowestRecall);
    return at ? { ...r, againstBound: at } : r;
  };
  results.forEach((r, i) => (results[i] = placed(r)));
  const none = placed(resultOf(totals.get('none')!, 'none', { runtime: 'builtin' }));
  const best = recommend(results, options.recallFloor);
  const recommended = { ...best, beatsNone: best.cost.withCache < none.cost.withCache };
  const chosen = policyOf.get(recommended.name)!.candidate;

  const exportsDir = join(options.outDir, 'exports');
  await makeDir(exportsDir);
  const written: { e: RuntimeExport; file: string; policy: string }[] = [];
  for (const e of runtimeExports(
    chosen,
    options.window,
    tools.map((t) => t.tool),
    grid,
  )) {
    const file = join(exportsDir, `${e.runtime}.json`);
    await writeJson(file, e.settings);
    // Each file replayed as its own runtime applies it (tcompact's through the ContextManager it configures).
    written.push({ e, file, policy: `${e.runtime === 'tcompact' ? 'config' : e.runtime}:${file}` });
  }
  const { totals: exportTotals } = await replayAll(
    source,
    written.map((w) => w.policy),
    pass,
    'the exports',
  );
  const exports = written.map((w) => {
    const result = resultOf(exportTotals.get(w.policy)!, w.e.runtime, { runtime: w.e.runtime, file: join('exports', `${w.e.runtime}.json`) });
    const note = [w.e.note, costlierThanNone(w.e, result.cost.withCache, none.cost.withCache)].filter((n) => n !== undefined).join('; ');
    return {
      ...result,
      runtime: w.e.runtime,
      exact: w.e.exact,
      ...(note ? { note } : {}),
      load: w.e.load,
      ...(w.e.adapter ? { adapter: w.e.adapter } : {}),
      file: join('exports', `${w.e.runtime}.json`),
    };
  });

  return {
    transcripts,
    window: options.window,
    ...(scalesCounts(options.tokenRatio) ? { tokenRatio: options.tokenRatio } : {}),
    recallFloor: options.recallFloor,
    tools,
    neededTools: neededTools(tools),
    grid,
    baselines: {
      none,
      default: placed(resultOf(totals.get('default')!, 'default', { runtime: 'builtin' })),
      optimal: placed(resultOf(totals.get(OPTIMAL)!, OPTIMAL, { runtime: 'builtin' })),
      optimalResults: placed(resultOf(totals.get(OPTIMAL_RESULTS)!, OPTIMAL_RESULTS, { runtime: 'builtin' })),
    },
    candidates: results,
    recommended,
    frontier,
    exports,
    ...(fidelity ? { fidelity } : {}),
  };
}

/** The note of a runtime's own editing that costs more than no compaction on the archive, with the figure. */
function costlierThanNone(e: RuntimeExport, cost: number, none: number): string | undefined {
  if (e.runtime === 'tcompact' || !(none > 0) || cost <= none) return undefined;
  return `the runtime's own editing costs ${(cost / none).toFixed(2)}× \`none\` with caching on this archive (${usdShort(cost)} against ${usdShort(none)}): run tcompact.json through its adapter instead`;
}
