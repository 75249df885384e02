import { Answerer } from './answerer.js';
import { AnswerCache } from './cache.js';
import { type LlmOptions, type LlmOptionsInput, parseLlmOptions } from './config.js';
import { type LlmDeps, connectLlm } from './connection.js';
import type { LlmFailureCode } from './failure.js';
import { type LlmUsage, UsageMeter, resolvePrice } from './usage.js';

export interface LlmSessionDeps extends LlmDeps {
  /** Side-store entries of earlier runs, so a summary of a summary is made from the originals. */
  resolveRef?: (ref: string) => string | undefined;
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
  /** A step records here each transcript whose answer it could not use. */
  noteFallback(entry: LlmFallbackEntry): void;
  usage(): LlmRunUsage;
  /** Requests not sent yet fail as `aborted` (their transcripts fall back); in-flight ones finish. */
  close(): Promise<void>;
}

/** Opens a session from raw options (validated here: E_CONFIG on bad input); `baseURL`/`apiKey` default to the env. */
export async function createLlmSession(input: LlmOptionsInput, deps: LlmSessionDeps = {}): Promise<LlmSession> {
  const options = parseLlmOptions(input);
  const { queue, limiter, inputBudget, temperature } = connectLlm(options, deps);
  const cache = options.cacheDir ? new AnswerCache(options.cacheDir) : null;
  await cache?.removeStaleTemps();
  const meter = new UsageMeter(options.model, resolvePrice(options.model, options.priceIn, options.priceOut));
  const answerer = new Answerer(queue, cache, meter, {
    maxAttempts: options.maxAttempts,
    params: { maxTokens: options.maxTokens, temperature: temperature ?? null },
  });
  const fallbacks: LlmFallbackEntry[] = [];
  return {
    options,
    answerer,
    inputBudget,
    params: temperature === undefined ? { maxTokens: options.maxTokens } : { maxTokens: options.maxTokens, temperature },
    ...(deps.resolveRef ? { resolveRef: deps.resolveRef } : {}),
    noteFallback: (entry) => fallbacks.push(entry),
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
