import { TcompactError } from '../errors.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import { Answerer } from './answerer.js';
import { type BatchApi, createBatchApi } from './batch-api.js';
import { BatchJournal } from './batch-journal.js';
import { type BatchProgress, type BatchRunReport, Batcher } from './batcher.js';
import { AnswerCache } from './cache.js';
import { defaultMaxTokensParam } from './client.js';
import { systemClock } from './clock.js';
import { type LlmOptions, type LlmOptionsInput, parseLlmOptions } from './config.js';
import { type LlmDeps, connectLlm } from './connection.js';
import type { LlmFailureCode } from './failure.js';
import { type LlmUsage, UsageMeter, resolvePrice, withBatchPrice } from './usage.js';

export interface LlmSessionDeps extends LlmDeps {
  /** Side-store entries of earlier runs, so a summary of a summary is made from the originals. */
  resolveRef?: (ref: string) => string | undefined;
  /** Another Batch API than the SDK's (batch mode only). */
  batchApi?: BatchApi;
  /** Batch mode: called at every poll while the run waits for its batches. */
  onBatchProgress?: (progress: BatchProgress) => void;
}

/** One transcript whose LLM step did not use the model's answer, and why. */
export interface LlmFallbackEntry {
  id: string;
  strategy: string;
  /** What ran instead (`checkpoint`, then `truncate` if still needed); empty when the transcript was left unchanged. */
  applied: string[];
  reason: string;
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
  /** Transcripts whose LLM step did not use the model, with the reason: the count, and the first examples by id. */
  fallbacks: { count: number; examples: LlmFallbackEntry[] };
  /** Timing: vary from run to run; keep out of files compared for determinism. */
  timing: { waitedMs: number; longestPauseMs: number };
  /** Batch mode only: the batches, what they answered, and what was asked again online. */
  batch?: BatchRunReport;
}

/** Fallbacks listed in usage(); the count covers all of them. */
const MAX_FALLBACK_EXAMPLES = 20;

/**
 * What an LLM step is handed: one model behind one queue, limiter, answer cache and usage meter, shared by every
 * transcript of a run.
 */
export interface LlmSession {
  readonly options: LlmOptions;
  readonly answerer: Answerer;
  /** Tokens one prompt may hold (window - maxTokens - margin, and within the TPM limit). */
  readonly inputBudget: number;
  /** Request parameters of every answer: the options' max_tokens and the temperature the model accepts. */
  readonly params: { maxTokens: number; temperature?: number };
  /** Looks up side-store entries of earlier runs; a step tries its own `ctx.refs` first. */
  readonly resolveRef?: (ref: string) => string | undefined;
  /** Batch mode (`options.batch`): gathers requests into batches, waits for them, and answers from their results. */
  readonly batcher?: Batcher;
  /** A step records here each transcript whose answer it could not use. */
  noteFallback(entry: LlmFallbackEntry): void;
  usage(): LlmRunUsage;
  /** Requests not sent yet fail as `aborted` (their transcripts fall back); in-flight ones finish. */
  close(): Promise<void>;
}

/** Who a session asks for, when not an LLM step. */
export interface LlmSessionUse {
  /** Names the options in errors (`judge.rpm: ...`). @default 'llm' */
  source?: string;
  /**
   * E_CONFIG when max_tokens leaves fewer tokens than this for a prompt (the judge takes 0: a question whose context
   * does not fit is counted, not an error). @default 1024
   */
  minPromptTokens?: number;
}

/** Opens a session from raw options (validated here: E_CONFIG on bad input); `baseURL`/`apiKey` default to the env. */
export async function createLlmSession(input: LlmOptionsInput, deps: LlmSessionDeps = {}, use: LlmSessionUse = {}): Promise<LlmSession> {
  const options = parseLlmOptions(input, use.source);
  const { queue, limiter, inputBudget, temperature } = connectLlm(options, deps, use);
  const cache = options.cacheDir ? new AnswerCache(options.cacheDir) : null;
  await cache?.removeStaleTemps();
  const listPrice = resolvePrice(options.model, options.priceIn, options.priceOut);
  const meter = new UsageMeter(options.model, options.batch ? withBatchPrice(listPrice, options.priceBatchIn, options.priceBatchOut) : listPrice);
  const tokenizer = getTokenizer('o200k_base');
  const batcher = options.batch ? await createBatcher(options, deps) : null;
  const answerer = new Answerer(
    queue,
    cache,
    meter,
    { maxAttempts: options.maxAttempts, params: { maxTokens: options.maxTokens, temperature: temperature ?? null }, countTokens: (t) => tokenizer.count(t) },
    batcher,
  );
  const fallbacks: LlmFallbackEntry[] = [];
  return {
    options,
    answerer,
    inputBudget,
    params: temperature === undefined ? { maxTokens: options.maxTokens } : { maxTokens: options.maxTokens, temperature },
    ...(deps.resolveRef ? { resolveRef: deps.resolveRef } : {}),
    ...(batcher ? { batcher } : {}),
    // A pass that only gathers a batch's requests falls back everywhere and is thrown away: its fallbacks are not real.
    noteFallback: (entry) => {
      if (!batcher?.gathering) fallbacks.push(entry);
    },
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
        ...(batcher ? { batch: batcher.report() } : {}),
      };
    },
    async close() {
      queue.close();
    },
  };
}

/** The Batch API side of validated options with `batch` set: its journal read, its collected results loaded. */
async function createBatcher(options: LlmOptions, deps: Pick<LlmSessionDeps, 'batchApi' | 'onBatchProgress' | 'env' | 'clock'> = {}): Promise<Batcher> {
  const batch = options.batch as NonNullable<LlmOptions['batch']>;
  if (!batch.dir) throw new TcompactError('E_CONFIG', 'llm.batch.dir: the folder of the batch journal is required');
  const env = deps.env ?? process.env;
  const api =
    deps.batchApi ??
    createBatchApi({
      baseURL: options.baseURL ?? (env.OPENAI_BASE_URL || undefined),
      apiKey: options.apiKey ?? (env.OPENAI_API_KEY || undefined),
      timeoutMs: options.timeoutMs,
    });
  const batcher = new Batcher(api, await BatchJournal.open(batch.dir), {
    model: options.model,
    maxTokensParam: defaultMaxTokensParam(options.model),
    pollMs: batch.pollSeconds * 1000,
    maxRequests: batch.maxRequests,
    maxBytes: batch.maxBytes,
    clock: deps.clock ?? systemClock,
    ...(deps.onBatchProgress ? { onProgress: deps.onBatchProgress } : {}),
  });
  await batcher.open();
  return batcher;
}

function byIdThenStrategy(a: LlmFallbackEntry, b: LlmFallbackEntry): number {
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  if (a.strategy !== b.strategy) return a.strategy < b.strategy ? -1 : 1;
  return a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0;
}
