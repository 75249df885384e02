import type { Message } from '../model/message.js';
import { isSourceSummary, recordedCall, sessionTotals } from '../model/recorded.js';
import { basePromptGroup, measuredBasePrompt } from './base-prompt.js';
import type { Transcript } from '../model/transcript.js';
import { transcriptProject } from '../model/project.js';
import { type HindsightScore, addHindsightScore, emptyHindsightScore, hindsightProbesAt, scoreHindsight } from '../retention/hindsight.js';
import { viewOfMessages } from '../retention/model-view.js';
import { contextTokens, countMessage, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { type CacheChoice, callModelOf as modelOfCall, chooseCache, recordedHits } from './billing/cache-choice.js';
import { CACHE_RULES, type CacheModelName, type CacheRules } from '../provider/cache-rules.js';
import { idleBefore, stripsEarlierThinking } from './client-thinking.js';
import { type Cost, costOfBill, rewriteCostOf } from './billing/prices.js';
import {
  type EmbeddedUsage,
  type RecordedUsage,
  embeddedUsage,
  outputAsBilled,
  recordedCacheRead,
  recordedCost,
  recordedInputCost,
  recordedUsage,
  recordedUsageByModel,
} from './billing/recorded-usage.js';
import { type RecordedTokenScale, type UnloggedSpan, providerCounter, scalesCounts, unloggedBilled, unloggedGrowth } from './billing/token-ratio.js';
import { CompactionCallMeter } from './compaction-calls.js';
import { asSent } from './sent-tool-output.js';
import type { Policy } from './policies/policy.js';
import type { ModelRun, PolicyRun } from './policy-run.js';
import { type ReplayLoopOptions, type ReplayStats, type ReplayedCall, replay } from './replay.js';
import { replaceByViews } from '../model/context-views.js';
import { withoutEarlierThinking } from './message-views.js';
import { postCompactionSteps, sendsUnloggedAfterCompaction } from './post-compaction-step.js';
import type { AbsorbedMentions } from './file-mentions.js';
import { correctionsOf } from './fidelity/corrections.js';
import { type FidelityCall, type SessionFidelity, sessionFidelity } from './fidelity/session-fidelity.js';
import { SOURCE_OWN, sourcePolicy } from './policies/source-policy.js';
import { sourceCompactionPoints } from './policies/source-points.js';
import type { ReplayDeps, ReplayOptions } from './replay-options.js';

/** Where a transcript came from. */
export interface TranscriptSource {
  file: string;
  line: number;
  format?: string;
}

/** One transcript's replay under every policy, with its record beside it. */
export interface TranscriptSimulation {
  id: string;
  file: string;
  line: number;
  messages: number;
  /** With `basePrompt: 'recorded'`: the tokens added to its every prompt. */
  basePrompt?: number;
  /** With a `tokenRatio` other than 1: the one its counts were scaled by. */
  tokenRatio?: number;
  /**
   * With `tokenRatio: 'recorded'`: how it was measured (see billing/token-ratio.ts): the framing added to each piece of
   * text, the clean intervals used and those left out, the quartiles of the intervals' ratios, and whether the archive's
   * scale stood in for its own. Absent when neither it nor the archive gave one (ratio 1).
   */
  tokenScale?: Omit<RecordedTokenScale, 'ratio'> & {
    /**
     * What the provider had that the transcript does not hold, while the record shows it: the spans, their tokens, the
     * tokens the replay bills for them (each span in every call it lasts), and that as a share of the recorded input
     * (absent without recorded input). A large share means the replay's input rests on the record more than on the log.
     */
    unlogged: { messages: number; tokens: number; billed: number; share?: number };
  };
  /** The cache model its replays were billed with. */
  cache: CacheModelName;
  /**
   * Under a best-effort cache (Google's): the TTL used, taken from the record's own hits (`ttlFrom: 'record'`, see
   * billing/cache-choice.ts recordedCacheTtl) or the rules' floor, and of the recorded calls made within it of their
   * model's previous call, how many read the cache. The replay reads at each of them: its cached cost is the least the
   * calls could cost, the uncached one the most.
   */
  bestEffort?: { ttlSeconds: number | null; ttlFrom: 'record' | 'rules'; eligible: number; hit: number };
  /** By policy name, in the order of the policies. */
  policies: Record<string, PolicyRun>;
  recorded?: PricedUsage;
  /** Subagent calls its source embedded beside its messages (Claude Code's progress records), by subagent; never replayed. */
  embedded?: (Omit<EmbeddedUsage, 'byModel'> & PricedUsage)[];
  /** With recorded usage: how far the `source` replay departs from the record (see fidelity/session-fidelity.ts). */
  fidelity?: SessionFidelity;
}

/** Recorded usage at its models' prices: by the model each call names, their costs adding up to `cost`. */
export type PricedUsage = RecordedUsage & {
  cost: Cost;
  byModel: Record<string, RecordedUsage & { cost: Cost }>;
  /**
   * The output counted from the replies of the calls whose usage was logged mid-stream (Claude Code), beside the final
   * calls' recorded output: what was billed (see billing/recorded-usage.ts `outputAsBilled`). `cost` uses the recorded
   * `output`, as ccusage does; the replay's costs use the output counted from the replies.
   */
  outputCounted?: number;
  /** Calls whose usage is a mid-stream snapshot. */
  midStreamCalls?: number;
  /** The cost the source itself recorded for its calls (Cline's `cost`), in US dollars, beside `cost` at tcompact's prices. */
  sourceCost?: number;
};

/** One transcript's replay under every policy, as data: what a worker thread hands back. */
export interface TranscriptReplay {
  result: TranscriptSimulation;
  /** By policy name: prompt tokens of each call, in call order (for the trace of the largest transcript). */
  prompts: Record<string, number[]>;
  /** No message recorded a timestamp: its calls were spaced by the call gap. */
  untimed: boolean;
  format?: string;
  /** The transcript's project (transcriptProject), when it records one. */
  project?: string;
}

/**
 * Each model's own base prompt, where the record shows it differs from the first call's: the first recorded call of
 * each model, less what the replay puts in that prompt (the messages before it and the tool definitions). A client can
 * send each model its own system prompt and tools (Claude Code gives a command run on Haiku a shorter one). A model
 * whose first call comes after the source's own compaction keeps the transcript's base: its prompt is not the messages
 * before it.
 */
function recordedBasePromptByModel(
  transcript: Transcript,
  modelOf: (m: Message) => string,
  tokenizer: Tokenizer,
  unlogged: readonly UnloggedSpan[],
): Map<string, number> {
  const out = new Map<string, number>();
  const messages = transcript.messages;
  const idle = idleBefore(messages);
  for (const [i, m] of messages.entries()) {
    if (isSourceSummary(m)) break;
    const call = recordedCall(m);
    if (!call || out.has(modelOf(m))) continue;
    const earlier = messages.slice(0, i);
    const sent = stripsEarlierThinking(m, modelOf(m), idle(m)) ? replaceByViews(earlier, withoutEarlierThinking(earlier)).messages : earlier;
    // The unlogged content the replay carries in this call's prompt is no part of the base.
    const carried = unlogged.reduce((n, s) => (s.at < i && s.from <= i && (s.until === undefined || i < s.until) ? n + s.tokens : n), 0);
    const before = contextTokens(sent, transcript.tools, tokenizer) + carried;
    out.set(modelOf(m), Math.max(0, call.uncached + call.written + call.read - before));
  }
  return out;
}

function unloggedReport(
  transcript: Transcript,
  spans: readonly UnloggedSpan[],
  recorded: RecordedUsage | undefined,
): NonNullable<TranscriptSimulation['tokenScale']>['unlogged'] {
  let tokens = 0;
  for (const s of spans) tokens += s.tokens;
  const billed = unloggedBilled(transcript, spans);
  const input = recorded?.input ?? 0;
  return { messages: spans.length, tokens, billed, ...(input > 0 ? { share: billed / input } : {}) };
}

function withoutRatio({ ratio: _ratio, ...rest }: RecordedTokenScale): Omit<RecordedTokenScale, 'ratio'> {
  return rest;
}

/** A replay priced call by call: each model's calls at its prices, the costs summed. */
function priced(stats: ReplayStats, rules: CacheRules, choice: CacheChoice): PolicyRun {
  const byModel: Record<string, ModelRun> = {};
  const cost = { withoutCache: 0, withCache: 0 };
  const rewriteCost = { cold: 0, edits: 0, other: 0 };
  for (const [model, bill] of Object.entries(stats.byModel)) {
    const { prices } = choice.pricingOf(model);
    const own = costOfBill({ input: bill.billedInput, cachedRead: bill.cachedInput, cacheWrites: bill.cacheWrites, output: bill.outputTokens }, prices);
    byModel[model] = { ...bill, cost: own };
    cost.withoutCache += own.withoutCache;
    cost.withCache += own.withCache;
    const rewrites = rewriteCostOf(bill.rewritten, rules, prices);
    for (const k of ['cold', 'edits', 'other'] as const) rewriteCost[k] += rewrites[k];
  }
  const { byModel: _bills, ...totals } = stats;
  return { ...totals, cost, rewriteCost, byModel };
}

/** Recorded usage by model, each model's at its rates, and the costs summed. */
function pricedUsage(byModel: Record<string, RecordedUsage>, choice: CacheChoice): Pick<PricedUsage, 'cost' | 'byModel'> {
  const out: PricedUsage['byModel'] = {};
  const cost = { withoutCache: 0, withCache: 0 };
  for (const [model, usage] of Object.entries(byModel)) {
    const own = recordedCost(usage, choice.pricingOf(model).rates);
    out[model] = { ...usage, cost: own };
    cost.withoutCache += own.withoutCache;
    cost.withCache += own.withCache;
  }
  return { cost, byModel: out };
}

/**
 * One transcript replayed under every policy: its provider's tokens (`tokenRatio`), its unrecorded base prompt, its
 * cache and prices, each policy's run priced with its compaction calls and hindsight, and the record beside them.
 */
export async function replayTranscript(
  transcript: Transcript,
  source: TranscriptSource,
  policies: readonly Policy[],
  o: ReplayOptions,
  deps: ReplayDeps,
): Promise<TranscriptReplay> {
  transcript = asSent(transcript);
  const recorded = recordedUsage(transcript);
  const { scale, ratio, tokenizer } = providerCounter(transcript, deps.tokenizer, o);
  // The `@file` contents of the first prompt are measured apart from the base (see file-mentions.ts).
  const measured = o.basePrompt === 'recorded' && recorded ? measuredBasePrompt(transcript, recorded, tokenizer) : undefined;
  const mentions = measured?.mentions;
  const unlogged = [...(scale ? unloggedGrowth(transcript, deps.tokenizer, scale) : []), ...(mentions?.spans ?? []).filter((span) => span.tokens > 0)];
  // A session that records only its totals has no first call to measure its base on: it takes its agent's in the archive.
  const archiveBase = o.basePrompt === 'recorded' && !recorded ? o.basePromptFallback?.[basePromptGroup(transcript, source.format)] : undefined;
  let basePrompt = o.basePrompt === 'recorded' ? (archiveBase?.tokens ?? measured?.tokens ?? 0) : o.basePrompt;
  const baseByModel = o.basePrompt === 'recorded' ? recordedBasePromptByModel(transcript, modelOfCall(transcript), tokenizer, unlogged) : undefined;
  const basePromptOf = baseByModel && baseByModel.size > 1 ? (i: number) => baseByModel.get(modelOfCall(transcript)(transcript.messages[i])) : undefined;
  const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
  const choice = chooseCache(transcript, recorded, o);
  const { rules, modelOf } = choice;
  const llmRates = choice.pricingOf(deps.llm ? deps.llm.usage().model : choice.mainModel).rates;
  const warmBase = o.basePrompt === 'recorded' ? (i: number) => recordedCacheRead(transcript.messages[i]) ?? 0 : undefined;
  // With the base measured on the record, a recorded read that stops inside it shows the base changed there.
  const baseHeld = o.basePrompt === 'recorded' ? (i: number) => recordedCacheRead(transcript.messages[i]) : undefined;
  const probesAt = hindsightProbesAt(transcript.messages);
  const env = {
    tokenizer,
    window: o.window,
    tools: transcript.tools,
    cooldown: o.cooldown,
    maxAttempts: o.maxAttempts,
    basePrompt,
    llm: deps.llm,
    focus: o.focus,
    transcript,
    tail: o.tail,
    cache: rules,
    pricesAt: (index: number) => choice.pricingOf(modelOf(transcript.messages[index])).prices,
    callGapSeconds: o.callGapSeconds,
    ...(warmBase ? { warmBase } : {}),
    hindsightAt: probesAt,
  };

  const result: TranscriptSimulation = {
    id: transcript.id,
    file: source.file,
    line: source.line,
    messages: transcript.messages.length,
    cache: rules.name,
    ...(rules.bestEffort === true
      ? {
          bestEffort: {
            ttlSeconds: rules.ttlSeconds,
            ttlFrom: rules.ttlSeconds === CACHE_RULES[rules.name].ttlSeconds ? 'rules' : 'record',
            ...recordedHits(transcript, rules.ttlSeconds, modelOf),
          },
        }
      : {}),
    ...(o.basePrompt === 'recorded' ? { basePrompt } : {}),
    ...(scalesCounts(o.tokenRatio) ? { tokenRatio: ratio } : {}),
    ...(scale ? { tokenScale: { ...withoutRatio(scale), unlogged: unloggedReport(transcript, unlogged, recorded) } } : {}),
    policies: {},
  };
  const prompts: Record<string, number[]> = {};
  const idle = idleBefore(transcript.messages);
  const replayOptions = {
    tokenizer,
    window: o.window,
    basePrompt,
    cache: rules,
    modelOf,
    callGapSeconds: o.callGapSeconds,
    ...(warmBase ? { warmBase } : {}),
    ...(baseHeld ? { baseHeld } : {}),
    ...(basePromptOf ? { basePromptOf } : {}),
    stripsEarlierThinking: (m: Message) => stripsEarlierThinking(m, modelOf(m), idle(m)),
    ...(o.hindsightAtMicro ? { microIsCompaction: true } : {}),
    ...(unlogged.length > 0 ? { unlogged } : {}),
  } as ReplayLoopOptions;
  // With the base prompt measured on the record, so is what the source re-sent after its compactions (estimated).
  const estimate = o.basePrompt === 'recorded' && recorded ? await estimatedPostCompactionSteps(transcript, env, replayOptions, mentions) : undefined;
  const steps = estimate?.steps ?? [];
  const unsizedTokens = estimate?.unsizedMentions ?? 0;
  if (mentions && unsizedTokens > 0) {
    // The `@file` contents the transcript cannot size come out of the base as the record shows them (estimated).
    const span = mentions.spans[mentions.spans.length - 1];
    if (span.tokens === 0) unlogged.push(span);
    span.tokens += unsizedTokens;
    basePrompt -= unsizedTokens;
    env.basePrompt = basePrompt;
    replayOptions.basePrompt = basePrompt;
    result.basePrompt = basePrompt;
    if (baseByModel) for (const [model, base] of baseByModel) baseByModel.set(model, Math.max(0, base - unsizedTokens));
    replayOptions.unlogged = unlogged;
  }
  if (steps.length > 0) replayOptions.unlogged = [...unlogged, ...steps];
  // The replay held against the record: `source` among the policies, else replayed apart for it alone.
  const totals = recorded ? undefined : sessionTotals(transcript);
  const heldAgainstRecord = (recorded || totals) && o.fidelity ? (policies.find((p) => p.replaysSource) ?? sourcePolicy('own')) : undefined;
  const fidelityCalls: FidelityCall[] = [];
  const onFidelityCall = (prompt: number, call: ReplayedCall) => {
    const inputCost = costOfBill({ input: prompt, cachedRead: call.read, cacheWrites: call.written, output: 0 }, env.pricesAt(call.messageIndex)).withCache;
    fidelityCalls.push({ ...call, prompt, inputCost });
  };
  if (heldAgainstRecord && !policies.includes(heldAgainstRecord)) {
    await replay(transcript, heldAgainstRecord.instantiate(env), { ...replayOptions, onCall: onFidelityCall });
  }
  // The source's summary calls that transcripts of their own log: a policy that does not make the source's compactions
  // does not make these calls either.
  const summaryCallsOf = [...new Set(sourceCompactionPoints(transcript).flatMap((p) => p.summaryCallTranscriptId ?? []))];
  for (const policy of policies) {
    const calls: number[] = (prompts[policy.name] = []);
    const instance = policy.instantiate(env);
    const meter = new CompactionCallMeter(deps.llm, o.batch, llmRates);
    let hindsight: (HindsightScore & { points: number }) | undefined;
    const onCompaction = (index: number, context: readonly Message[]) => {
      hindsight ??= { ...emptyHindsightScore(), points: 0 };
      hindsight.points++;
      addHindsightScore(hindsight, scoreHindsight(probesAt(index), viewOfMessages(context), { root }));
    };
    const held = policy === heldAgainstRecord;
    const stats = await replay(transcript, instance, {
      ...replayOptions,
      onCall: (n, call) => {
        calls.push(n);
        if (held) onFidelityCall(n, call);
      },
      onCompaction,
    });
    const figures = instance.figures?.();
    const run: PolicyRun = {
      ...priced(stats, rules, choice),
      ...(figures?.atPoints ? { atPoints: figures.atPoints } : {}),
      ...(figures?.frontier ? { frontier: figures.frontier } : {}),
      ...(!policy.replaysSource && summaryCallsOf.length > 0 ? { replacesCallsOf: summaryCallsOf } : {}),
    };
    if (hindsight) run.hindsight = hindsight;
    const compactionCalls = meter.priced(figures);
    if (compactionCalls) {
      run.compactionCalls = compactionCalls;
      run.cost.withoutCache += compactionCalls.cost;
      run.cost.withCache += compactionCalls.cost;
    }
    result.policies[policy.name] = run;
  }
  if (recorded) {
    result.recorded = { ...recorded, ...pricedUsage(recordedUsageByModel(transcript, modelOf), choice) };
    const output = outputAsBilled(transcript, (m) => totalOf(countMessage(m, tokenizer)));
    if (output) Object.assign(result.recorded, { outputCounted: output.counted, midStreamCalls: output.midStreamCalls });
    const costs = transcript.messages.flatMap((m) => (m.role === 'assistant' && typeof m.cost === 'number' && Number.isFinite(m.cost) ? [m.cost] : []));
    if (costs.length > 0) result.recorded.sourceCost = costs.reduce((a, b) => a + b, 0);
  }
  if (heldAgainstRecord) {
    const fidelity = sessionFidelity(transcript, fidelityCalls, {
      policy: SOURCE_OWN,
      recordedInputCost: (i) => {
        const call = recordedCall(transcript.messages[i]);
        return call ? recordedInputCost(call, choice.pricingOf(modelOf(transcript.messages[i])).rates) : 0;
      },
      unloggedAt: (i) => unlogged.reduce((n, span) => (span.at === i && span.from === i + 1 ? n + span.tokens : n), 0),
      ...correctionsOf(
        transcript,
        steps,
        mentions ? { sized: mentions.sized, unsized: { files: unsizedTokens > 0 ? mentions.unsized.length : 0, tokens: unsizedTokens } } : undefined,
        o.basePrompt === 'recorded' && !recorded ? (archiveBase ?? 'unknown') : undefined,
      ),
      basePrompt,
      ...(totals ? { totalsInputCost: recordedInputCost(totals.tokens, choice.pricingOf(totals.model ?? choice.mainModel).rates) } : {}),
    });
    if (fidelity) result.fidelity = fidelity;
  }
  const embedded = embeddedUsage(transcript, choice.mainModel);
  if (embedded.length > 0) result.embedded = embedded.map(({ byModel, ...e }) => ({ ...e, ...pricedUsage(byModel, choice) }));
  const untimed = !transcript.messages.some((m) => m.timestamp !== undefined);
  const project = transcriptProject(transcript);
  return { result, prompts, untimed, ...(source.format === undefined ? {} : { format: source.format }), ...(project === undefined ? {} : { project }) };
}

/**
 * The post-compaction steps of a source that re-sends unlogged content after compacting (see postCompactionSteps):
 * measured on a replay of its own compactions without them.
 */
async function estimatedPostCompactionSteps(
  transcript: Transcript,
  env: Parameters<Policy['instantiate']>[0],
  options: ReplayLoopOptions,
  mentions: AbsorbedMentions | undefined,
): Promise<{ steps: UnloggedSpan[]; unsizedMentions: number }> {
  const points = sourceCompactionPoints(transcript).filter((p) => p.summary !== undefined);
  if (!sendsUnloggedAfterCompaction(transcript) || points.length === 0) return { steps: [], unsizedMentions: 0 };
  const prompts = new Map<number, number>();
  await replay(transcript, sourcePolicy('own').instantiate(env), { ...options, onCall: (prompt, call) => prompts.set(call.messageIndex, prompt) });
  const unsizedMentions = mentions && mentions.unsized.length > 0 ? unsizedMentionTokens(transcript, points[0].callIndex, prompts, options.basePrompt ?? 0) : 0;
  if (unsizedMentions === 0) return { steps: postCompactionSteps(transcript, prompts), unsizedMentions };
  // Without them in the base, every prompt from the first compaction on is that much shorter.
  const after = new Map([...prompts].map(([i, n]) => [i, i >= points[0].callIndex ? n - unsizedMentions : n]));
  return { steps: postCompactionSteps(transcript, after), unsizedMentions };
}

/**
 * The `@file` contents of the first prompt that the transcript cannot size (see file-mentions.ts), as the record shows
 * them: at the first call after the source's first compaction, the replayed prompt beyond the recorded one, which is
 * what the base held that the source no longer sent (at most the base itself).
 */
function unsizedMentionTokens(transcript: Transcript, callIndex: number, prompts: ReadonlyMap<number, number>, base: number): number {
  const call = recordedCall(transcript.messages[callIndex]);
  const replayed = prompts.get(callIndex);
  if (!call || replayed === undefined) return 0;
  const beyond = replayed - (call.uncached + call.written + call.read);
  return beyond > 0 ? Math.round(Math.min(beyond, base)) : 0;
}
