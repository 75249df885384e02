import type { LlmRunUsage, LlmSession } from '../llm/session.js';
import type { Transcript } from '../model/transcript.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import { type Policy, resolvePolicy } from './policies.js';
import { type Cost, type Prices, costOf } from './pricing.js';
import { type RecordedUsage, recordedCost, recordedUsage } from './recorded-usage.js';
import { type ReplayStats, emptyReplayStats, replay } from './replay.js';

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
  /** The model of the policies' LLM steps (`summarize@0.9`, and `auto`'s summarizer). @default none */
  llm?: LlmSession;
  /** summarize's focus (`--focus`). @default none */
  focus?: string;
}

export type PolicyRun = ReplayStats & { cost: Cost };

export interface TranscriptSimulation {
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
}

/** Every call's prompt size under each policy, for one transcript: the largest (by its whole prompt without compaction). */
export interface PromptTrace {
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
    };
    const result: TranscriptSimulation = { id: transcript.id, file: source.file, line: source.line, messages: transcript.messages.length, policies: {} };
    const prompts: Record<string, number[]> = {};
    for (const policy of this.policies) {
      const calls: number[] = (prompts[policy.name] = []);
      const onCall = (n: number) => calls.push(n);
      const stats = await replay(transcript, policy.instantiate(env), { tokenizer: o.tokenizer, window: o.window, basePrompt: o.basePrompt, onCall });
      result.policies[policy.name] = {
        ...stats,
        cost: costOf({ input: stats.billedInput, cachedRead: stats.cachedInput, output: stats.outputTokens }, o.prices),
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
      policies: totals.map((t) => ({
        name: t.name,
        summary: t.summary,
        ...t.run,
        reductionVsNone: none > 0 ? 1 - t.run.billedInput / none : 0,
        stuckTranscripts: t.stuck,
      })),
      perTranscript: this.perTranscript,
      ...(this.trace ? { trace: this.trace.trace } : {}),
    };
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
