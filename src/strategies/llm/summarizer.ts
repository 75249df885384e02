import { TcompactError } from '../../errors.js';
import type { Transcript } from '../../model/transcript.js';
import { classifyTangents } from './classify-tangents.js';
import { summarizeTranscript } from './summarize.js';
import type { StrategyContext } from '../types.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { Answerer } from '../../llm/answerer.js';
import { AnswerCache } from '../../llm/cache.js';
import { type ChatClient, createOpenAIChatClient, defaultMaxTokensParam } from '../../llm/client.js';
import { type Clock, systemClock } from '../../llm/clock.js';
import { DEFAULT_SUMMARIZER_WINDOW, type LlmOptions, type LlmOptionsInput, parseLlmOptions } from '../../llm/config.js';
import type { LlmFailureCode } from '../../llm/failure.js';
import type { LlmStepDeps, LlmStepResult } from './llm-step.js';
import { RateLimiter } from '../../llm/limiter.js';
import { modelInfo } from '../../llm/model-info.js';
import { type LlmStepRun, runLlmStep } from './run-llm-step.js';
import { LlmQueue, type QueueEvent } from '../../llm/queue.js';
import { type LlmUsage, UsageMeter, resolvePrice } from '../../llm/usage.js';

/** Everything a run may inject; tests use a fake clock, a seeded random and a loopback server. */
export interface LlmSummarizerDeps {
  /** @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** A client other than the OpenAI SDK one (tests, other transports). */
  client?: ChatClient;
  onEvent?: (event: QueueEvent) => void;
  /** Aborting (e.g. on SIGINT) stops new requests; unfinished jobs fall back. */
  signal?: AbortSignal;
  /** Where OPENAI_BASE_URL and OPENAI_API_KEY are read. @default process.env */
  env?: Record<string, string | undefined>;
  /** Side-store entries of earlier runs, so a summary of a summary is made from the originals. */
  resolveRef?: (ref: string) => string | undefined;
}

/** The run's LLM usage for report.json. */
export interface LlmRunUsage extends LlmUsage {
  /** Requests sent, retries included. */
  requests: number;
  /** Failed requests by failure code (see failure.ts). */
  failuresByCode: Partial<Record<LlmFailureCode, number>>;
  /** Jobs that failed for good after their attempts (their transcripts fell back). */
  jobsFailed: number;
  /** Whole-queue pauses after a 429. */
  pauses: number;
  /** The limits in force at the end: configured, tightened by the server's headers. */
  limits: { rpm: number | null; tpm: number | null };
  /**
   * Transcripts whose LLM step did not use the model (summarize fell back to checkpoint/truncate, classify-tangents
   * left the transcript unchanged), with the reason: the count, and the first examples by id.
   */
  fallbacks: { count: number; examples: LlmFallbackEntry[] };
  /** Timing: vary from run to run; keep out of files compared for determinism. */
  timing: { waitedMs: number; longestPauseMs: number };
}

/** One transcript whose LLM step fell back, and why (as in the step's `llm.fallback`). */
export interface LlmFallbackEntry {
  id: string;
  strategy: LlmStepResult['llm']['strategy'];
  /** What ran instead: `checkpoint`, then `truncate` if still needed; empty when the transcript was left unchanged. */
  applied: string[];
  reason: string;
}

/** Fallbacks listed in usage(); the count covers all of them. */
const MAX_FALLBACK_EXAMPLES = 20;

/** The LLM steps of one run, sharing one queue, one limiter, one cache and one usage meter. */
export interface LlmSummarizer {
  readonly options: LlmOptions;
  /** Tokens one prompt may hold (window - maxTokens - margin, and within the TPM limit). */
  readonly inputBudget: number;
  summarize(transcript: Transcript, ctx: StrategyContext): Promise<LlmStepResult>;
  classifyTangents(transcript: Transcript, ctx: StrategyContext): Promise<LlmStepResult>;
  /** `summarize` reported like a runner step (StepReport + `llm`), for a pipeline's main-thread hook. */
  summarizeStep(transcript: Transcript, ctx: StrategyContext): Promise<LlmStepRun>;
  /** `classify-tangents` reported like a runner step. */
  classifyTangentsStep(transcript: Transcript, ctx: StrategyContext): Promise<LlmStepRun>;
  usage(): LlmRunUsage;
  /** Requests not sent yet fail as `aborted` (their transcripts fall back); in-flight ones finish. */
  close(): Promise<void>;
}

/** Tokens kept free in the summarizer's window besides max_tokens: our count and the server's may differ a little. */
function safetyMargin(window: number): number {
  return Math.max(256, Math.floor(window * 0.02));
}

/**
 * Builds the LLM steps of a run from raw options (validated here: E_CONFIG on bad input). `baseURL` and `apiKey`
 * default to OPENAI_BASE_URL and OPENAI_API_KEY.
 */
export async function createLlmSummarizer(input: LlmOptionsInput, deps: LlmSummarizerDeps = {}): Promise<LlmSummarizer> {
  const options = parseLlmOptions(input);
  const env = deps.env ?? process.env;
  const clock = deps.clock ?? systemClock;
  const window = options.contextWindow ?? modelInfo(options.model).contextWindow ?? DEFAULT_SUMMARIZER_WINDOW;
  let inputBudget = window - options.maxTokens - safetyMargin(window);
  if (options.tpm !== undefined) inputBudget = Math.min(inputBudget, options.tpm - options.maxTokens);
  if (inputBudget < 1024) {
    throw new TcompactError(
      'E_CONFIG',
      `llm: maxTokens ${options.maxTokens} leaves only ${inputBudget} tokens for the prompt (window ${window}${options.tpm ? `, tpm ${options.tpm}` : ''})`,
    );
  }
  const client =
    deps.client ??
    createOpenAIChatClient({
      model: options.model,
      baseURL: options.baseURL ?? (env.OPENAI_BASE_URL || undefined),
      apiKey: options.apiKey ?? (env.OPENAI_API_KEY || undefined),
      timeoutMs: options.timeoutMs,
    });
  const limiter = new RateLimiter({ rpm: options.rpm, tpm: options.tpm, clock });
  const tokenizer = getTokenizer('o200k_base');
  const queue = new LlmQueue(client, limiter, {
    concurrency: options.llmConcurrency,
    maxAttempts: options.maxAttempts,
    clock,
    countTokens: (text) => tokenizer.count(text),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const cache = options.cacheDir ? new AnswerCache(options.cacheDir) : null;
  await cache?.removeStaleTemps();
  const meter = new UsageMeter(options.model, resolvePrice(options.model, options.priceIn, options.priceOut));
  const temperature = options.temperature ?? (defaultMaxTokensParam(options.model) === 'max_completion_tokens' ? undefined : 0);
  const answerer = new Answerer(queue, cache, meter, {
    maxAttempts: options.maxAttempts,
    params: { maxTokens: options.maxTokens, temperature: temperature ?? null },
  });
  const stepDeps: LlmStepDeps = { answerer, inputBudget, ...(deps.resolveRef ? { resolveRef: deps.resolveRef } : {}) };
  const stepOptions = { ...options, temperature };

  const fallbacks: LlmFallbackEntry[] = [];
  const noted = (id: string, result: LlmStepResult): LlmStepResult => {
    const { outcome, strategy, fallback } = result.llm;
    if (outcome === 'fallback') fallbacks.push({ id, strategy, applied: [...(fallback?.applied ?? [])], reason: fallback?.reason ?? 'unknown' });
    return result;
  };
  const summarize = async (transcript: Transcript, ctx: StrategyContext) =>
    noted(transcript.id, await summarizeTranscript(transcript, stepOptions, ctx, stepDeps));
  const tangents = async (transcript: Transcript, ctx: StrategyContext) => noted(transcript.id, await classifyTangents(transcript, stepOptions, ctx, stepDeps));

  return {
    options,
    inputBudget,
    summarize,
    classifyTangents: tangents,
    summarizeStep: (transcript, ctx) => runLlmStep('summarize', summarize, transcript, ctx),
    classifyTangentsStep: (transcript, ctx) => runLlmStep('classify-tangents', tangents, transcript, ctx),
    usage() {
      const q = queue.stats();
      const l = limiter.stats();
      return {
        ...meter.snapshot(),
        requests: q.requests,
        failuresByCode: q.failuresByCode,
        jobsFailed: q.jobsFailed,
        pauses: l.pauses,
        limits: { rpm: limiter.limits.rpm ?? null, tpm: limiter.limits.tpm ?? null },
        // Jobs finish in any order: sorted, so the report does not depend on timing.
        fallbacks: { count: fallbacks.length, examples: [...fallbacks].sort(byIdThenStrategy).slice(0, MAX_FALLBACK_EXAMPLES) },
        timing: { waitedMs: l.waitedMs, longestPauseMs: l.longestPauseMs },
      };
    },
    async close() {
      queue.close();
    },
  };
}

function byIdThenStrategy(a: LlmFallbackEntry, b: LlmFallbackEntry): number {
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  if (a.strategy !== b.strategy) return a.strategy < b.strategy ? -1 : 1;
  return a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0;
}
