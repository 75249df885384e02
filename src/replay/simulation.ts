import { parseConfig } from '../model/parse.js';
import type { Transcript } from '../model/transcript.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import { cacheReport, headlinePrices, modelPricesReport, ratesOfModel } from './billing/cache-choice.js';
import type { CacheModelName } from '../provider/cache-rules.js';
import { scalesCounts } from './billing/token-ratio.js';
import { compactionCallPrice } from './compaction-calls.js';
import type { Policy } from './policies/policy.js';
import { preparePolicies, resolvePolicies } from './policies/resolve.js';
import { type ReplayDeps, type ReplayOptions, type ReplayOptionsInput, ReplayOptionsSchema } from './replay-options.js';
import { type PromptTrace, type SimulationReport, byGroup, policyTotals, recordedReport, sourcePointsReport } from './simulation-report.js';
import { formatGroups, projectGroups } from '../report/groups.js';
import { fidelitySummary } from './fidelity/fidelity-summary.js';
import { type TranscriptReplay, type TranscriptSimulation, type TranscriptSource, replayTranscript } from './transcript-replay.js';

/** Every model a call was billed as, replayed or recorded, in the order first met. */
function billedModels(perTranscript: readonly TranscriptSimulation[]): Set<string> {
  const models = new Set<string>();
  for (const t of perTranscript) {
    for (const run of Object.values(t.policies)) for (const m of Object.keys(run.byModel)) models.add(m);
    for (const m of Object.keys(t.recorded?.byModel ?? {})) models.add(m);
    for (const e of t.embedded ?? []) for (const m of Object.keys(e.byModel)) models.add(m);
  }
  return models;
}

/** A Simulation's options: the replay's (validated here) with what it runs with. */
export type SimulateOptions = ReplayOptionsInput & ReplayDeps;

/** Replays an archive under several policies and sums the results; add transcripts in input order. */
export class Simulation {
  readonly options: ReplayOptions;
  private readonly deps: ReplayDeps;
  private readonly policies: Policy[];
  private readonly perTranscript: TranscriptSimulation[] = [];
  /** The source format of each transcript of perTranscript, in the same order. */
  private readonly formats: (string | undefined)[] = [];
  /** The project of each transcript of perTranscript, in the same order. */
  private readonly projects: (string | undefined)[] = [];
  private trace: { peak: number; trace: PromptTrace } | undefined;
  /** Transcripts by the cache model they were billed with, in the order the models were first used. */
  private readonly cacheModels = new Map<CacheModelName, number>();
  private untimed = 0;
  /** The policies' strategies prepared in this thread (see preparePolicies), once. */
  private prepared: Promise<void> | undefined;

  constructor({ tokenizer, llm, ...options }: SimulateOptions) {
    this.options = parseConfig(ReplayOptionsSchema, options, { source: 'replay options' });
    this.deps = { tokenizer, llm };
    this.policies = resolvePolicies(this.options.policies, tokenizer, { withModel: llm !== undefined });
  }

  async add(transcript: Transcript, source: TranscriptSource): Promise<TranscriptSimulation> {
    return this.accept(await this.replayTranscript(transcript, source));
  }

  /**
   * One transcript replayed under every policy, without adding it to the sums: a worker thread replays, the thread
   * that reports accepts the results in input order, so the sums are the same whatever thread replayed what.
   */
  async replayTranscript(transcript: Transcript, source: TranscriptSource): Promise<TranscriptReplay> {
    await (this.prepared ??= preparePolicies(this.policies, this.deps.tokenizer));
    return replayTranscript(transcript, source, this.policies, this.options, this.deps);
  }

  /** Adds a replayed transcript to the sums; accept transcripts in input order. */
  accept(replayed: TranscriptReplay): TranscriptSimulation {
    const { result, prompts } = replayed;
    this.formats.push(replayed.format);
    this.projects.push(replayed.project);
    this.cacheModels.set(result.cache, (this.cacheModels.get(result.cache) ?? 0) + 1);
    if (replayed.untimed) this.untimed++;
    this.perTranscript.push(result);
    const peak = result.policies.none.peakPrompt;
    if (result.policies.none.calls > 0 && (this.trace === undefined || peak > this.trace.peak)) {
      this.trace = { peak, trace: { id: result.id, file: result.file, line: result.line, prompts } };
    }
    return result;
  }

  report(): SimulationReport {
    const o = this.options;
    const source = this.policies.find((p) => p.replaysSource)?.name;
    const report: SimulationReport = {
      tokenizer: this.deps.tokenizer.name,
      window: o.window,
      thresholds: { ...DEFAULT_THRESHOLDS },
      prices: headlinePrices(this.cacheModels, o),
      cooldown: o.cooldown,
      maxAttempts: o.maxAttempts,
      basePrompt: o.basePrompt,
      ...(scalesCounts(o.tokenRatio) ? { tokenRatio: o.tokenRatio } : {}),
      ...(o.tokenRatio === 'recorded' && o.tokenScaleFallback ? { tokenScaleFallback: o.tokenScaleFallback } : {}),
      transcripts: this.perTranscript.length,
      policies: policyTotals(this.policies, this.perTranscript),
      perTranscript: this.perTranscript,
      ...(this.trace ? { trace: this.trace.trace } : {}),
    };
    report.cache = cacheReport(this.cacheModels, this.untimed, o);
    report.modelPrices = modelPricesReport(billedModels(this.perTranscript), o);
    const names = this.policies.map((p) => p.name);
    const formats = byGroup(names, this.perTranscript, this.formats, formatGroups);
    if (formats) report.byFormat = formats;
    const projects = byGroup(names, this.perTranscript, this.projects, projectGroups);
    if (projects) report.byProject = projects;
    if (source !== undefined) report.sourcePoints = sourcePointsReport(this.perTranscript.map((t) => t.policies[source].atPoints ?? []));
    const llm = this.deps.llm;
    if (llm) {
      const { timing: _timing, ...usage } = llm.usage();
      report.llm = usage;
      const price = compactionCallPrice(usage, ratesOfModel(usage.model, o), o.batch);
      report.compactionPricing = { model: usage.model, inPerMillion: price.inPerMillion, outPerMillion: price.outPerMillion, batch: o.batch !== undefined };
    }
    const recorded = recordedReport(this.perTranscript, source);
    if (recorded) report.recorded = recorded;
    const fidelity = fidelitySummary(this.perTranscript.flatMap((t) => t.fidelity ?? []));
    if (fidelity) report.fidelity = fidelity;
    return report;
  }
}
