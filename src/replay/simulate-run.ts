import type { LlmRunUsage, LlmSession } from '../llm/session.js';

/** The Batch API bills half the list price. */
const BATCH_DISCOUNT = 0.5;
import type { Transcript } from '../model/transcript.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import { type Policy, type TailOptions, resolvePolicy } from './policies/built-in.js';
import { CACHE_RULES, type CacheModelName, DEFAULT_CALL_GAP_SECONDS, defaultCacheModel } from './billing/cache-rules.js';
import { type Cost, type PriceFlags, type Prices, costOf, pricesFor } from './billing/prices.js';
import { type RecordedUsage, recordedCacheRead, recordedCost, recordedUsage } from './billing/recorded-usage.js';
import { type ReplayStats, contextTokens, emptyReplayStats, replay } from './replay.js';
import { type ProbeScore, addScore, emptyScore } from '../retention/score.js';
import { type HindsightProbe, type HindsightScore, addHindsightScore, emptyHindsightScore, hindsightProbes, scoreHindsight } from '../retention/hindsight.js';
import { viewOfMessages } from '../retention/model-view.js';
import { recordedTokenRatio, scaledTokenizer, scalesCounts } from './billing/token-ratio.js';
import { FormatGroups } from '../report/by-format.js';
import type { Message } from '../model/message.js';
import { type PointResult, SOURCE_OWN, SOURCE_PREFIX, type SourcePolicyInstance } from './policies/source-policy.js';
import { isSourceSummary } from '../model/recorded.js';

export interface SimulateOptions {
  /** Score hindsight at every micro-compaction as well as at compactions (see ReplayOptions.microIsCompaction). @default false */
  hindsightAtMicro?: boolean;
  /** Policy names (see policies.ts); `none` is always replayed first, as the baseline. */
  policies: readonly string[];
  window: number;
  tokenizer: Tokenizer;
  /** Input and output prices; the cache's write and read prices follow from the cache model unless given. */
  prices: PriceFlags;
  /** The prompt cache of every transcript. @default by source (`defaultCacheModel`) */
  cache?: CacheModelName;
  /** Seconds between calls of a transcript without timestamps. @default DEFAULT_CALL_GAP_SECONDS */
  callGapSeconds?: number;
  /** @default 0 */
  cooldown?: number;
  /** @default 3 */
  maxAttempts?: number;
  /**
   * Tokens added to every prompt for the system prompt and tools the transcripts do not record; `recorded`: each
   * transcript's own, its first recorded call's input minus the replayed first prompt (0 without recorded usage).
   * @default 0
   */
  basePrompt?: number | 'recorded';
  /**
   * Provider tokens per token of `tokenizer`, applied to every count of the replay (prompts, outputs, the policies'
   * thresholds): a number for every transcript, or `recorded` for each transcript's own ratio measured from its
   * recorded usage (see token-ratio.ts; 1 without). @default 1
   */
  tokenRatio?: number | 'recorded';
  /** The protected tail of the policies' strategies. @default the strategies' defaults */
  tail?: TailOptions;
  /** The model of the policies' LLM steps (`summarize@0.9`, and `auto`'s summarizer). @default none */
  llm?: LlmSession;
  /** summarize's focus (`--focus`). @default none */
  focus?: string;
  /**
   * Bill the policies' LLM compaction calls at the Batch API's price: these prices per million tokens, else half the
   * model's list price. @default online price
   */
  batch?: { in?: number; out?: number };
}

/**
 * The model calls a policy's compactions made: the summarizer's prompts and answers, billed beside the agent's own
 * calls (and included in its costs). Our LLM steps at the `--model`'s price (its list price when known, else
 * `--price-in`/`--price-out`; with `batch`, the Batch API's); the source's own summaries at the agent's prices.
 */
export interface CompactionCalls {
  calls: number;
  input: number;
  output: number;
  cost: number;
}

type PolicyRun = ReplayStats & {
  cost: Cost;
  /** Absent when the policy's compactions asked no model. */
  compactionCalls?: CompactionCalls;
  /**
   * Threshold policies: at each compaction the policy made, the facts of before it that the session used again after
   * it (see hindsight.ts), retained by the context it left. Absent when the policy never compacted.
   */
  hindsight?: HindsightScore & { points: number };
  /** `source` policies: what the policy kept at each of the source's compaction points. */
  atPoints?: PointResult[];
};

interface TranscriptSimulation {
  id: string;
  file: string;
  line: number;
  messages: number;
  /** With `basePrompt: 'recorded'`: the tokens added to its every prompt. */
  basePrompt?: number;
  /** With a `tokenRatio` other than 1: the one its counts were scaled by. */
  tokenRatio?: number;
  /** The cache model its replays were billed with; absent for the ideal cache. */
  cache?: CacheModelName;
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
  hindsight: HindsightScore;
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
  /** Inputs of several source formats: per format, each policy's billed input, cost and reduction against `none`. */
  byFormat?: Record<string, { transcripts: number; policies: Record<string, { billedInput: number; cost: Cost; reductionVsNone: number }> }>;
  tokenizer: string;
  window: number;
  thresholds: { warning: number; compaction: number; hardLimit: number };
  prices: Prices;
  cooldown: number;
  maxAttempts: number;
  basePrompt: number | 'recorded';
  /** Absent when 1: the replay counted with the tokenizer as it is. */
  tokenRatio?: number | 'recorded';
  transcripts: number;
  policies: PolicyTotals[];
  /** Transcripts with recorded usage: the recorded figures summed, beside the simulated `none` replay of the same transcripts. */
  recorded?: {
    transcripts: number;
    usage: RecordedUsage & { cost: Cost };
    simulatedNone: PolicyRun;
    /**
     * With the `source` policy: the replay of what the sessions did, their own compactions included but not their
     * compaction calls, which a source records apart (Claude Code: the `agent-acompact-*` subagent files, transcripts
     * of their own among the inputs).
     */
    simulatedSource?: PolicyRun;
  };
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
  /** The prompt-cache models used, with their rules and prices; absent when every transcript used the ideal cache. */
  cache?: CacheReport;
  /** With a model: the price its compaction calls were billed at, per million tokens. */
  compactionPricing?: { model: string; inPerMillion: number; outPerMillion: number; batch: boolean };
}

interface CacheReport {
  /** `flag`: `--cache` for every transcript; `source`: each transcript's by its source. */
  chosenBy: 'flag' | 'source';
  /** Seconds between calls assumed for transcripts without timestamps. */
  callGapSeconds: number;
  /** Transcripts that recorded no timestamp (their calls are spaced by callGapSeconds). */
  untimedTranscripts: number;
  models: Partial<Record<CacheModelName, { transcripts: number; ttlSeconds: number | null; minTokens: number; step: number; prices: Prices }>>;
}

function emptyRun(): PolicyRun {
  return { ...emptyReplayStats(), cost: { withoutCache: 0, withCache: 0 } };
}

/** A run without the cost of its compaction calls. */
function withoutCompactionCalls(r: PolicyRun): PolicyRun {
  if (!r.compactionCalls) return r;
  const { compactionCalls, ...rest } = r;
  return { ...rest, cost: { withoutCache: r.cost.withoutCache - compactionCalls.cost, withCache: r.cost.withCache - compactionCalls.cost } };
}

function addRun(into: PolicyRun, r: PolicyRun): void {
  into.calls += r.calls;
  into.billedInput += r.billedInput;
  into.cachedInput += r.cachedInput;
  if (r.cacheWrites !== undefined) into.cacheWrites = (into.cacheWrites ?? 0) + r.cacheWrites;
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
  if (r.hindsight) {
    const h = (into.hindsight ??= { ...emptyHindsightScore(), points: 0 });
    addHindsightScore(h, r.hindsight);
    h.points += r.hindsight.points;
  }
  if (r.compactionCalls) {
    const c = (into.compactionCalls ??= { calls: 0, input: 0, output: 0, cost: 0 });
    c.calls += r.compactionCalls.calls;
    c.input += r.compactionCalls.input;
    c.output += r.compactionCalls.output;
    c.cost += r.compactionCalls.cost;
  }
}

/**
 * The system prompt and tools a transcript's first recorded call carried beyond what the replay puts in its first
 * prompt (the messages before the first reply and the tool definitions); 0 without recorded usage.
 */
function recordedBasePrompt(transcript: Transcript, recorded: RecordedUsage | undefined, tokenizer: Tokenizer): number {
  if (!recorded) return 0;
  const first = transcript.messages.findIndex((m) => m.role === 'assistant');
  const before = transcript.messages.slice(0, first < 0 ? 0 : first).filter((m) => !isSourceSummary(m));
  return Math.max(0, recorded.firstCallInput - contextTokens(before, transcript.tools, tokenizer));
}


/** Hindsight probes by transcript and reply index: every policy that edits before the same reply asks for the same. */
const hindsightMemo = new WeakMap<Transcript, Map<number, HindsightProbe[]>>();

/** The hindsight probes of a compaction before the reply at `index`: what came before it against what came after. */
function hindsightAt(transcript: Transcript, index: number): HindsightProbe[] {
  let byIndex = hindsightMemo.get(transcript);
  if (!byIndex) hindsightMemo.set(transcript, (byIndex = new Map()));
  let probes = byIndex.get(index);
  if (!probes) {
    const messages = transcript.messages;
    probes = hindsightProbes(
      messages.slice(0, index).filter((m) => !isSourceSummary(m)),
      messages.slice(index).filter((m) => !isSourceSummary(m)),
    );
    byIndex.set(index, probes);
  }
  return probes;
}

/** One transcript's replay under every policy, as data: what a worker thread hands back. */
export interface TranscriptReplay {
  result: TranscriptSimulation;
  /** By policy name: prompt tokens of each call, in call order (for the trace of the largest transcript). */
  prompts: Record<string, number[]>;
  /** No message recorded a timestamp: its calls were spaced by the call gap. */
  untimed: boolean;
  format?: string;
}

/** Replays an archive under several policies and sums the results; add transcripts in input order. */
export class Simulation {
  private readonly policies: Policy[];
  private readonly perTranscript: TranscriptSimulation[] = [];
  /** The source format of each transcript of perTranscript, in the same order. */
  private readonly formats: (string | undefined)[] = [];
  private trace: { peak: number; trace: PromptTrace } | undefined;
  private readonly cacheModels = new Map<CacheModelName, number>();
  private untimed = 0;

  constructor(private readonly options: SimulateOptions) {
    const names = ['none', ...options.policies.filter((n) => n !== 'none')];
    // The source's own compaction always runs beside ours at its points, for the side-by-side comparison.
    if (names.some((n) => n.startsWith(SOURCE_PREFIX)) && !names.includes(SOURCE_OWN)) names.splice(1, 0, SOURCE_OWN);
    this.policies = names.map((n) => resolvePolicy(n, options.tokenizer, { withModel: options.llm !== undefined }));
  }

  async add(transcript: Transcript, source: { file: string; line: number; format?: string }): Promise<TranscriptSimulation> {
    return this.accept(await this.replayTranscript(transcript, source));
  }

  /**
   * One transcript replayed under every policy, without adding it to the sums: a worker thread replays, the thread
   * that reports accepts the results in input order, so the sums are the same whatever thread replayed what.
   */
  async replayTranscript(transcript: Transcript, source: { file: string; line: number; format?: string }): Promise<TranscriptReplay> {
    const o = this.options;
    const recorded = recordedUsage(transcript, { byTtl: o.cache !== 'ideal' });
    const ratio = o.tokenRatio === 'recorded' ? (recordedTokenRatio(transcript, o.tokenizer)?.ratio ?? 1) : (o.tokenRatio ?? 1);
    const tokenizer = ratio === 1 ? o.tokenizer : scaledTokenizer(o.tokenizer, ratio);
    const basePrompt = o.basePrompt === 'recorded' ? recordedBasePrompt(transcript, recorded, tokenizer) : o.basePrompt;
    const env = {
      tokenizer,
      window: o.window,
      tools: transcript.tools,
      cooldown: o.cooldown,
      maxAttempts: o.maxAttempts,
      basePrompt,
      llm: o.llm,
      focus: o.focus,
      transcript,
      tail: o.tail,
    };
    const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
    const model = o.cache ?? defaultCacheModel(transcript, recorded);
    const rules = CACHE_RULES[model];
    const prices = pricesFor(rules, o.prices);
    const result: TranscriptSimulation = {
      id: transcript.id,
      file: source.file,
      line: source.line,
      messages: transcript.messages.length,
      ...(model === 'ideal' ? {} : { cache: model }),
      ...(o.basePrompt === 'recorded' ? { basePrompt } : {}),
      ...(scalesCounts(o.tokenRatio) ? { tokenRatio: ratio } : {}),
      policies: {},
    };
    const prompts: Record<string, number[]> = {};
    for (const policy of this.policies) {
      const calls: number[] = (prompts[policy.name] = []);
      const onCall = (n: number) => calls.push(n);
      const instance = policy.instantiate(env);
      const usageBefore = o.llm?.usage();
      let hindsight: (HindsightScore & { points: number }) | undefined;
      const onCompaction = (index: number, context: readonly Message[]) => {
        hindsight ??= { ...emptyHindsightScore(), points: 0 };
        hindsight.points++;
        addHindsightScore(hindsight, scoreHindsight(hindsightAt(transcript, index), viewOfMessages(context), { root }));
      };
      const stats = await replay(transcript, instance, {
        tokenizer,
        window: o.window,
        basePrompt,
        onCall,
        onCompaction,
        cache: rules,
        callGapSeconds: o.callGapSeconds,
        ...(o.basePrompt === 'recorded' ? { warmBase: (i: number) => recordedCacheRead(transcript.messages[i]) ?? 0 } : {}),
        ...(o.hindsightAtMicro ? { microIsCompaction: true } : {}),
      });
      const run: PolicyRun = {
        ...stats,
        cost: costOf({ input: stats.billedInput, cachedRead: stats.cachedInput, cacheWrites: stats.cacheWrites, output: stats.outputTokens }, prices),
        ...('points' in instance ? { atPoints: (instance as SourcePolicyInstance).points } : {}),
      };
      if (hindsight) run.hindsight = hindsight;
      const compactionCalls = this.compactionCalls(instance as SourcePolicyInstance, usageBefore, prices);
      if (compactionCalls) {
        run.compactionCalls = compactionCalls;
        run.cost.withoutCache += compactionCalls.cost;
        run.cost.withCache += compactionCalls.cost;
      }
      result.policies[policy.name] = run;
    }
    if (recorded) result.recorded = { ...recorded, cost: recordedCost(recorded, prices) };
    const untimed = !transcript.messages.some((m) => m.timestamp !== undefined);
    return { result, prompts, untimed, ...(source.format === undefined ? {} : { format: source.format }) };
  }

  /** Adds a replayed transcript to the sums; accept transcripts in input order. */
  accept(replayed: TranscriptReplay): TranscriptSimulation {
    const { result, prompts } = replayed;
    this.formats.push(replayed.format);
    const model = result.cache ?? 'ideal';
    this.cacheModels.set(model, (this.cacheModels.get(model) ?? 0) + 1);
    if (replayed.untimed) this.untimed++;
    this.perTranscript.push(result);
    const peak = result.policies.none.peakPrompt;
    if (result.policies.none.calls > 0 && (this.trace === undefined || peak > this.trace.peak)) {
      this.trace = { peak, trace: { id: result.id, file: result.file, line: result.line, prompts } };
    }
    return result;
  }

  /** The price of the LLM steps' calls: the model's list price (else the agent's), or the Batch API's. */
  private llmPrice(usage: LlmRunUsage, prices: Pick<Prices, 'input' | 'output'>): { in: number; out: number } {
    const list = usage.price ? { in: usage.price.inPerMillion, out: usage.price.outPerMillion } : { in: prices.input, out: prices.output };
    const b = this.options.batch;
    return b ? { in: b.in ?? list.in * BATCH_DISCOUNT, out: b.out ?? list.out * BATCH_DISCOUNT } : list;
  }

  /** What one replay's compactions asked of a model, priced; undefined when they asked nothing. */
  private compactionCalls(instance: SourcePolicyInstance, before: LlmRunUsage | undefined, prices: Prices): CompactionCalls | undefined {
    const out: CompactionCalls = { calls: 0, input: 0, output: 0, cost: 0 };
    const own = instance.summarizer;
    if (own && own.calls > 0) {
      out.calls += own.calls;
      out.input += own.input;
      out.output += own.output;
      out.cost += (own.input * prices.input + own.output * prices.output) / 1e6;
    }
    const llm = this.options.llm;
    if (llm && before) {
      const after = llm.usage();
      const calls = after.answers - before.answers;
      const input = after.promptTokens - before.promptTokens;
      const output = after.completionTokens - before.completionTokens;
      if (calls > 0 || input > 0) {
        const price = this.llmPrice(after, prices);
        out.calls += calls;
        out.input += input;
        out.output += output;
        out.cost += (input * price.in + output * price.out) / 1e6;
      }
    }
    return out.calls > 0 ? out : undefined;
  }

  /** A `source` policy's figures at the points, summed over transcripts; undefined for other policies. */
  private pointTotals(name: string): PointTotals | undefined {
    if (name !== SOURCE_OWN && !name.startsWith(SOURCE_PREFIX)) return undefined;
    const out: PointTotals = { points: 0, tokensBefore: 0, tokensAfter: 0, score: emptyScore(), hindsight: emptyHindsightScore() };
    for (const t of this.perTranscript) {
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

  private cacheReport(): CacheReport | undefined {
    if (this.options.cache === 'ideal') return undefined;
    const models: CacheReport['models'] = {};
    for (const [name, transcripts] of this.cacheModels) {
      const r = CACHE_RULES[name];
      models[name] = { transcripts, ttlSeconds: r.ttlSeconds, minTokens: r.minTokens, step: r.step, prices: pricesFor(r, this.options.prices) };
    }
    return {
      chosenBy: this.options.cache === undefined ? 'source' : 'flag',
      callGapSeconds: this.options.callGapSeconds ?? DEFAULT_CALL_GAP_SECONDS,
      untimedTranscripts: this.untimed,
      models,
    };
  }

  /** With inputs of several source formats: each policy's billed input and cost per format, the agents side by side. */
  private byFormat(): SimulationReport['byFormat'] {
    const groups = new FormatGroups<{ transcripts: number; policies: Record<string, { billedInput: number; cost: Cost; reductionVsNone: number }> }>(() => ({
      transcripts: 0,
      policies: {},
    }));
    this.perTranscript.forEach((t, i) => {
      const g = groups.of(this.formats[i]);
      g.transcripts++;
      for (const p of this.policies) {
        const run = t.policies[p.name];
        const into = (g.policies[p.name] ??= { billedInput: 0, cost: { withoutCache: 0, withCache: 0 }, reductionVsNone: 0 });
        into.billedInput += run.billedInput;
        into.cost.withoutCache += run.cost.withoutCache;
        into.cost.withCache += run.cost.withCache;
      }
    });
    const out = groups.result();
    for (const g of Object.values(out ?? {})) {
      const none = g.policies[this.policies[0].name].billedInput;
      for (const p of Object.values(g.policies)) p.reductionVsNone = none > 0 ? 1 - p.billedInput / none : 0;
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
      prices: pricesFor(CACHE_RULES[[...this.cacheModels.keys()][0] ?? o.cache ?? 'anthropic-5m'], o.prices),
      cooldown: o.cooldown ?? 0,
      maxAttempts: o.maxAttempts ?? 3,
      basePrompt: o.basePrompt ?? 0,
      ...(scalesCounts(o.tokenRatio) ? { tokenRatio: o.tokenRatio } : {}),
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
    const cache = this.cacheReport();
    if (cache) report.cache = cache;
    const byFormat = this.byFormat();
    if (byFormat) report.byFormat = byFormat;
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
      const price = this.llmPrice(o.llm.usage(), o.prices);
      report.compactionPricing = { model: usage.model, inPerMillion: price.in, outPerMillion: price.out, batch: o.batch !== undefined };
    }
    const withUsage = this.perTranscript.filter((t) => t.recorded);
    if (withUsage.length > 0) {
      const usage: RecordedUsage & { cost: Cost } = {
        calls: 0,
        input: 0,
        uncachedInput: 0,
        cacheCreation: 0,
        ...(o.cache === 'ideal' ? {} : { cacheCreation1h: 0 }),
        cacheRead: 0,
        output: 0,
        firstCallInput: 0,
        cost: { withoutCache: 0, withCache: 0 },
      };
      const simulatedNone = emptyRun();
      const simulatedSource = this.policies.some((p) => p.name === SOURCE_OWN) ? emptyRun() : undefined;
      for (const t of withUsage) {
        const r = t.recorded as RecordedUsage & { cost: Cost };
        usage.calls += r.calls;
        usage.input += r.input;
        usage.uncachedInput += r.uncachedInput;
        usage.cacheCreation += r.cacheCreation;
        if (usage.cacheCreation1h !== undefined) usage.cacheCreation1h += r.cacheCreation1h ?? 0;
        usage.cacheRead += r.cacheRead;
        usage.output += r.output;
        usage.firstCallInput += r.firstCallInput;
        usage.cost.withoutCache += r.cost.withoutCache;
        usage.cost.withCache += r.cost.withCache;
        addRun(simulatedNone, t.policies.none);
        if (simulatedSource) addRun(simulatedSource, withoutCompactionCalls(t.policies[SOURCE_OWN]));
      }
      report.recorded = { transcripts: withUsage.length, usage, simulatedNone, ...(simulatedSource ? { simulatedSource } : {}) };
    }
    return report;
  }
}
