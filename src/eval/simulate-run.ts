import type { LlmRunUsage, LlmSession } from '../llm/session.js';
import type { Transcript } from '../model/transcript.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import { type Policy, type TailOptions, resolvePolicy } from './policies.js';
import { type Cost, type Prices, costOf } from './pricing.js';
import { type RecordedUsage, recordedCost, recordedUsage } from './recorded-usage.js';
import { type ReplayStats, emptyReplayStats, replay } from './replay.js';
import { type ProbeScore, addScore, emptyScore } from './score.js';
import { type PointResult, SOURCE_OWN, SOURCE_PREFIX, type SourcePolicyInstance } from './source-policy.js';

export interface SimulateOptions {
  /** Policy names (see policies.ts); `none` is always replayed first, as the baseline. */
  policies: readonly string[];
  window: number;
  tokenizer: Tokenizer;
  prices: Prices;
  /** @default 0 */
  cooldown?: number;
  /** @default 3 */
  maxAttempts?: number;
  /** Tokens added to every prompt for the system prompt and tools the transcripts do not record. @default 0 */
  basePrompt?: number;
  /** The protected tail of the policies' strategies. @default the strategies' defaults */
  tail?: TailOptions;
  /** The model of the policies' LLM steps (`summarize@0.9`, and `auto`'s summarizer). @default none */
  llm?: LlmSession;
  /** summarize's focus (`--focus`). @default none */
  focus?: string;
}

type PolicyRun = ReplayStats & {
  cost: Cost;
  /** `source` policies: what the policy kept at each of the source's compaction points. */
  atPoints?: PointResult[];
};

interface TranscriptSimulation {
  id: string;
  file: string;
  line: number;
  messages: number;
  /** By policy name, in the order of `policies`. */
  policies: Record<string, PolicyRun>;
  recorded?: RecordedUsage & { cost: Cost };
}

export interface PolicyTotals extends PolicyRun {
  name: string;
  summary: string;
  /** 1 - billedInput / billedInput of `none`; 0 when nothing was billed. */
  reductionVsNone: number;
  /** Transcripts whose replay got stuck. */
  stuckTranscripts: number;
  /** `source` policies: what they kept at the source's compaction points, summed over the points. */
  atSourcePoints?: PointTotals;
}

/** A `source` policy's figures at the source's compaction points, summed. */
interface PointTotals {
  /** Points where the policy's compaction is known (for `source`, those with a recorded summary). */
  points: number;
  /** Prompt tokens just before and just after the compaction, summed over those points. */
  tokensBefore: number;
  tokensAfter: number;
  score: ProbeScore;
}

/** Every call's prompt size under each policy, for one transcript: the largest (by its whole prompt without compaction). */
interface PromptTrace {
  id: string;
  file: string;
  line: number;
  /** By policy name: prompt tokens of each call, in call order. */
  prompts: Record<string, number[]>;
}

export interface SimulationReport {
  tokenizer: string;
  window: number;
  thresholds: { warning: number; compaction: number; hardLimit: number };
  prices: Prices;
  cooldown: number;
  maxAttempts: number;
  basePrompt: number;
  transcripts: number;
  policies: PolicyTotals[];
  /** Transcripts with recorded usage: the recorded figures summed, beside the simulated `none` replay of the same transcripts. */
  recorded?: { transcripts: number; usage: RecordedUsage & { cost: Cost }; simulatedNone: PolicyRun };
  perTranscript: TranscriptSimulation[];
  /** Absent when no transcript made a call. */
  trace?: PromptTrace;
  /** With `source` policies: the source's compaction points replayed (all, known or not), by kind of mark. */
  sourcePoints?: {
    transcripts: number;
    points: number;
    withSummary: number;
    byKind: Record<string, number>;
    /** Points whose summary is encrypted (Codex): `source` keeps the recorded replacement history there. Absent when none. */
    opaque?: number;
  };
  /** The LLM steps' usage when a model was given, without its timing (which varies from run to run). */
  llm?: Omit<LlmRunUsage, 'timing'>;
}

function emptyRun(): PolicyRun {
  return { ...emptyReplayStats(), cost: { withoutCache: 0, withCache: 0 } };
}

function addRun(into: PolicyRun, r: PolicyRun): void {
  into.calls += r.calls;
  into.billedInput += r.billedInput;
  into.cachedInput += r.cachedInput;
  into.outputTokens += r.outputTokens;
  into.compactions += r.compactions;
  into.microCompactions += r.microCompactions;
  into.peakPrompt = Math.max(into.peakPrompt, r.peakPrompt);
  into.firstPrompt += r.firstPrompt;
  into.callsOverHardLimit += r.callsOverHardLimit;
  into.callsOverWindow += r.callsOverWindow;
  into.stuck ||= r.stuck;
  into.cost.withoutCache += r.cost.withoutCache;
  into.cost.withCache += r.cost.withCache;
}

/** Replays an archive under several policies and sums the results; add transcripts in input order. */
export class Simulation {
  private readonly policies: Policy[];
  private readonly perTranscript: TranscriptSimulation[] = [];
  private trace: { peak: number; trace: PromptTrace } | undefined;

  constructor(private readonly options: SimulateOptions) {
    const names = ['none', ...options.policies.filter((n) => n !== 'none')];
    // The source's own compaction always runs beside ours at its points, for the side-by-side comparison.
    if (names.some((n) => n.startsWith(SOURCE_PREFIX)) && !names.includes(SOURCE_OWN)) names.splice(1, 0, SOURCE_OWN);
    this.policies = names.map((n) => resolvePolicy(n, options.tokenizer, { withModel: options.llm !== undefined }));
  }

  async add(transcript: Transcript, source: { file: string; line: number }): Promise<TranscriptSimulation> {
    const o = this.options;
    const env = {
      tokenizer: o.tokenizer,
      window: o.window,
      tools: transcript.tools,
      cooldown: o.cooldown,
      maxAttempts: o.maxAttempts,
      basePrompt: o.basePrompt,
      llm: o.llm,
      focus: o.focus,
      transcript,
      tail: o.tail,
    };
    const result: TranscriptSimulation = { id: transcript.id, file: source.file, line: source.line, messages: transcript.messages.length, policies: {} };
    const prompts: Record<string, number[]> = {};
    for (const policy of this.policies) {
      const calls: number[] = (prompts[policy.name] = []);
      const onCall = (n: number) => calls.push(n);
      const instance = policy.instantiate(env);
      const stats = await replay(transcript, instance, { tokenizer: o.tokenizer, window: o.window, basePrompt: o.basePrompt, onCall });
      result.policies[policy.name] = {
        ...stats,
        cost: costOf({ input: stats.billedInput, cachedRead: stats.cachedInput, output: stats.outputTokens }, o.prices),
        ...('points' in instance ? { atPoints: (instance as SourcePolicyInstance).points } : {}),
      };
    }
    const recorded = recordedUsage(transcript);
    if (recorded) result.recorded = { ...recorded, cost: recordedCost(recorded, o.prices) };
    this.perTranscript.push(result);
    const peak = result.policies.none.peakPrompt;
    if (result.policies.none.calls > 0 && (this.trace === undefined || peak > this.trace.peak)) {
      this.trace = { peak, trace: { id: transcript.id, file: source.file, line: source.line, prompts } };
    }
    return result;
  }

  /** A `source` policy's figures at the points, summed over transcripts; undefined for other policies. */
  private pointTotals(name: string): PointTotals | undefined {
    if (name !== SOURCE_OWN && !name.startsWith(SOURCE_PREFIX)) return undefined;
    const out: PointTotals = { points: 0, tokensBefore: 0, tokensAfter: 0, score: emptyScore() };
    for (const t of this.perTranscript) {
      for (const p of t.policies[name].atPoints ?? []) {
        if (!p.known) continue;
        out.points++;
        out.tokensBefore += p.tokensBefore;
        out.tokensAfter += p.tokensAfter;
        addScore(out.score, p.score);
      }
    }
    return out;
  }

  report(): SimulationReport {
    const o = this.options;
    const totals = this.policies.map((p) => {
      const run = emptyRun();
      let stuck = 0;
      for (const t of this.perTranscript) {
        addRun(run, t.policies[p.name]);
        if (t.policies[p.name].stuck) stuck++;
      }
      return { name: p.name, summary: p.summary, run, stuck };
    });
    const none = totals[0].run.billedInput;
    const report: SimulationReport = {
      tokenizer: o.tokenizer.name,
      window: o.window,
      thresholds: { ...DEFAULT_THRESHOLDS },
      prices: o.prices,
      cooldown: o.cooldown ?? 0,
      maxAttempts: o.maxAttempts ?? 3,
      basePrompt: o.basePrompt ?? 0,
      transcripts: this.perTranscript.length,
      policies: totals.map((t) => {
        const { atPoints: _points, ...run } = t.run;
        const totals: PolicyTotals = {
          name: t.name,
          summary: t.summary,
          ...run,
          reductionVsNone: none > 0 ? 1 - t.run.billedInput / none : 0,
          stuckTranscripts: t.stuck,
        };
        const atPoints = this.pointTotals(t.name);
        if (atPoints) totals.atSourcePoints = atPoints;
        return totals;
      }),
      perTranscript: this.perTranscript,
      ...(this.trace ? { trace: this.trace.trace } : {}),
    };
    if (this.policies.some((p) => p.name === SOURCE_OWN)) {
      const points: NonNullable<SimulationReport['sourcePoints']> = { transcripts: 0, points: 0, withSummary: 0, byKind: {} };
      for (const t of this.perTranscript) {
        const at = t.policies[SOURCE_OWN].atPoints ?? [];
        if (at.length > 0) points.transcripts++;
        for (const p of at) {
          points.points++;
          if (p.known) points.withSummary++;
          if (p.opaque) points.opaque = (points.opaque ?? 0) + 1;
          for (const k of p.kinds) points.byKind[k] = (points.byKind[k] ?? 0) + 1;
        }
      }
      report.sourcePoints = points;
    }
    if (o.llm) {
      const { timing: _timing, ...usage } = o.llm.usage();
      report.llm = usage;
    }
    const withUsage = this.perTranscript.filter((t) => t.recorded);
    if (withUsage.length > 0) {
      const usage: RecordedUsage & { cost: Cost } = {
        calls: 0,
        input: 0,
        uncachedInput: 0,
        cacheCreation: 0,
        cacheRead: 0,
        output: 0,
        firstCallInput: 0,
        cost: { withoutCache: 0, withCache: 0 },
      };
      const simulatedNone = emptyRun();
      for (const t of withUsage) {
        const r = t.recorded as RecordedUsage & { cost: Cost };
        usage.calls += r.calls;
        usage.input += r.input;
        usage.uncachedInput += r.uncachedInput;
        usage.cacheCreation += r.cacheCreation;
        usage.cacheRead += r.cacheRead;
        usage.output += r.output;
        usage.firstCallInput += r.firstCallInput;
        usage.cost.withoutCache += r.cost.withoutCache;
        usage.cost.withCache += r.cost.withCache;
        addRun(simulatedNone, t.policies.none);
      }
      report.recorded = { transcripts: withUsage.length, usage, simulatedNone };
    }
    return report;
  }
}
