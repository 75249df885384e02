import { type AnswerCache, type CachedAnswer, cacheKey } from './cache.js';
import type { Batcher } from './batcher.js';
import { type LlmFailure, type LlmFailureCode, isRetryable } from './failure.js';
import type { LlmJob, LlmQueue } from './queue.js';
import { type UsageMeter, costOf } from './usage.js';

export type Check<T> = (answer: string) => { ok: true; value: T } | { ok: false; reason: string };

/** What one question cost and met; summed into the transcript's report. */
export interface AskRecord {
  /** Requests sent, retries included. */
  requests: number;
  /** Answers received from the server (accepted or rejected). */
  answers: number;
  /** Answers reused from the cache or from an identical question of the same run. */
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
  /** Failure code of every failed request, in order. */
  failures: LlmFailureCode[];
  /** Why each rejected answer was rejected (empty, malformed, not smaller, ...). */
  rejections: string[];
  /** Other findings, e.g. a cache write that failed (the answer was still used). */
  notes: string[];
  /** Timing: keep out of compared files. */
  waitedMs: number;
  /** The part of the answers and tokens above that came through the Batch API (priced at the batch price). */
  batch?: { answers: number; promptTokens: number; completionTokens: number };
}

export function emptyRecord(): AskRecord {
  return {
    requests: 0,
    answers: 0,
    cacheHits: 0,
    promptTokens: 0,
    completionTokens: 0,
    usageEstimated: false,
    failures: [],
    rejections: [],
    notes: [],
    waitedMs: 0,
  };
}

export function addRecord(into: AskRecord, from: AskRecord): AskRecord {
  into.requests += from.requests;
  into.answers += from.answers;
  into.cacheHits += from.cacheHits;
  into.promptTokens += from.promptTokens;
  into.completionTokens += from.completionTokens;
  into.usageEstimated ||= from.usageEstimated;
  into.failures.push(...from.failures);
  into.rejections.push(...from.rejections);
  into.notes.push(...from.notes);
  into.waitedMs += from.waitedMs;
  if (from.batch) {
    into.batch ??= { answers: 0, promptTokens: 0, completionTokens: 0 };
    into.batch.answers += from.batch.answers;
    into.batch.promptTokens += from.batch.promptTokens;
    into.batch.completionTokens += from.batch.completionTokens;
  }
  return into;
}

export type AskResult<T> =
  | { ok: true; value: T; record: AskRecord }
  /** `failure` is set when a request failed for good; otherwise every answer was rejected. */
  | { ok: false; failure?: LlmFailure; record: AskRecord };

interface AnswererOptions {
  /** Answers asked for per question before giving up on rejected ones. */
  maxAttempts: number;
  /** Request parameters that change the answer (max tokens, temperature): part of the cache key. */
  params: Record<string, unknown>;
  /** Counts an answer's tokens when the server reported no usage. @default characters / 4 */
  countTokens?: (text: string) => number;
}

const PENDING: LlmFailure = { code: 'batch_pending', message: 'the request waits for a batch' };

/** Settled questions kept in memory so identical questions of one run pay once even without a cache directory. */
const MEMORY_ENTRIES = 2000;

/** A question's settled result; undefined while unsettled or after a transient failure (which is asked again). */
type Settled = CachedAnswer;

/**
 * Asks the model a question whose answer must pass a check: from the cache when the question was settled before,
 * otherwise through the queue, asking again (up to maxAttempts answers) when an answer is rejected. Both outcomes are
 * cached: an accepted answer, and the rejections when every answer was rejected (so a re-run falls back the same way
 * without paying again); transient failures are not. Identical questions asked at the same time share one request.
 * Never throws.
 */
export class Answerer {
  private readonly inflight = new Map<string, Promise<Settled | undefined>>();
  private readonly memory = new Map<string, Settled>();

  constructor(
    private readonly queue: LlmQueue,
    private readonly cache: AnswerCache | null,
    private readonly meter: UsageMeter,
    private readonly options: AnswererOptions,
    /** The Batch API side, in batch mode: requests are gathered for it, and its answers used before the queue's. */
    private readonly batcher: Batcher | null = null,
  ) {}

  /** Estimated US dollars of what a record paid for; null when the model's price is unknown. */
  costOf(record: AskRecord): number | null {
    return costOf({ promptTokens: record.promptTokens, completionTokens: record.completionTokens }, this.meter.price, record.batch);
  }

  /** The cache key of a job: model, prompt version, parameters and the exact messages sent. */
  keyOf(job: LlmJob, promptVersion: string): string {
    return cacheKey({ model: this.queue.model, promptVersion, params: this.options.params, messages: job.request.messages });
  }

  async ask<T>(job: LlmJob, promptVersion: string, check: Check<T>): Promise<AskResult<T>> {
    const record = emptyRecord();
    const key = this.keyOf(job, promptVersion);
    if (this.batcher?.gathering) return this.gather(this.batcher, key, job, check, record);
    const reuse = (settled: Settled | undefined): AskResult<T> | undefined => {
      if (settled === undefined) return undefined;
      if ('rejected' in settled) {
        record.cacheHits++;
        record.rejections.push(...settled.rejected.map((r) => `(cached) ${r}`));
        this.meter.recordCacheHit();
        return { ok: false, record };
      }
      const c = check(settled.text);
      if (!c.ok) return undefined;
      record.cacheHits++;
      this.meter.recordCacheHit();
      return { ok: true, value: c.value, record };
    };
    const shared = this.inflight.get(key);
    if (shared) {
      const reused = reuse(await shared);
      if (reused) return reused;
    }
    // Registered before any await, so an identical question arriving meanwhile waits for this one.
    let settle: (s: Settled | undefined) => void = () => undefined;
    const mine = new Promise<Settled | undefined>((resolve) => (settle = resolve));
    this.inflight.set(key, mine);
    try {
      for (const candidate of [this.memory.get(key), await this.cache?.get(key)]) {
        const reused = reuse(candidate);
        if (reused) {
          settle(candidate);
          return reused;
        }
      }
      const result = await this.fetch(job, check, record, key);
      let settled: Settled | undefined;
      if (result.ok) settled = { text: result.text, usage: result.usage };
      else if (!result.failure && !result.transient) settled = { rejected: record.rejections.slice() };
      if (settled) {
        this.remember(key, settled);
        const error = await this.cache?.put(key, settled);
        if (error) record.notes.push(`cache write failed (result used anyway): ${error}`);
      }
      settle(settled);
      if (result.ok) return { ok: true, value: result.value, record };
      return result.failure ? { ok: false, failure: result.failure, record } : { ok: false, record };
    } finally {
      settle(undefined);
      if (this.inflight.get(key) === mine) this.inflight.delete(key);
    }
  }

  /**
   * While a batch run gathers its requests: what the cache or the collected batches already answer, else the request
   * is deferred to the next batch and the step falls back (its output is thrown away). Nothing is cached or counted:
   * the pass that keeps its output asks again.
   */
  private async gather<T>(batcher: Batcher, key: string, job: LlmJob, check: Check<T>, record: AskRecord): Promise<AskResult<T>> {
    const cached = this.memory.get(key) ?? (await this.cache?.get(key));
    if (cached) {
      if ('rejected' in cached) return { ok: false, record };
      const c = check(cached.text);
      if (c.ok) return { ok: true, value: c.value, record };
    }
    const result = batcher.resultOf(key);
    if (!result) {
      batcher.defer(key, job);
      return { ok: false, failure: PENDING, record };
    }
    if (result.ok) {
      const c = check(result.text);
      return c.ok ? { ok: true, value: c.value, record } : { ok: false, failure: PENDING, record };
    }
    // A refused prompt makes the step ask a smaller one, which goes into the next batch.
    if (result.failure.code === 'context_length_exceeded') return { ok: false, failure: result.failure, record };
    return { ok: false, failure: PENDING, record };
  }

  private remember(key: string, settled: Settled): void {
    if (this.memory.size >= MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
    this.memory.set(key, settled);
  }

  private async fetch<T>(
    job: LlmJob,
    check: Check<T>,
    record: AskRecord,
    key: string,
  ): Promise<
    { ok: true; value: T; text: string; usage: { promptTokens: number; completionTokens: number } } | { ok: false; failure?: LlmFailure; transient: boolean }
  > {
    // A garbage 2xx may come from a flaky proxy rather than the model: such a rejection is not cached.
    let transient = false;
    let answers = this.options.maxAttempts;
    const batched = this.batcher?.resultOf(key);
    if (batched?.ok) {
      const usage = batched.usage ?? { promptTokens: job.promptTokens, completionTokens: this.countTokens(batched.text) };
      record.answers++;
      record.promptTokens += usage.promptTokens;
      record.completionTokens += usage.completionTokens;
      record.usageEstimated ||= batched.usage === null;
      record.batch = { answers: 1, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
      this.meter.recordAnswer(usage, batched.usage === null, true);
      const c = check(batched.text);
      if (c.ok) return { ok: true, value: c.value, text: batched.text, usage };
      // Rejected: the other answers are asked online, as the queue would have asked them.
      record.rejections.push(c.reason);
      answers--;
    } else if (batched && this.batcher) {
      const reason = `${batched.reason === 'error' ? 'the batch refused it' : `batch ${batched.reason}`}: ${batched.failure.code}: ${batched.failure.message}`;
      const askAgain = batched.reason !== 'error' || isRetryable(batched.failure.code) || batched.failure.code === 'bad_response';
      this.batcher.noteUnanswered(key, reason, askAgain ? 'online' : 'fallback');
      if (!askAgain) {
        record.failures.push(batched.failure.code);
        return { ok: false, failure: batched.failure, transient: true };
      }
      record.notes.push(`${reason}; asked once more online`);
      answers = 1;
    }
    for (let answer = 1; answer <= answers; answer++) {
      const out = await this.queue.run(job);
      record.requests += out.attempts;
      record.failures.push(...out.failures);
      record.waitedMs += out.waitedMs;
      if (!out.ok && out.error.code === 'bad_response') {
        // A 2xx that is not a chat completion is a garbage answer: ask again, like for a rejected one.
        record.rejections.push(`bad response: ${out.error.message}`);
        transient = true;
        continue;
      }
      if (!out.ok) return { ok: false, failure: out.error, transient: true };
      const { text, usage, usageEstimated } = out.value;
      record.answers++;
      record.promptTokens += usage.promptTokens;
      record.completionTokens += usage.completionTokens;
      record.usageEstimated ||= usageEstimated;
      this.meter.recordAnswer(usage, usageEstimated);
      const c = check(text);
      if (c.ok) return { ok: true, value: c.value, text, usage };
      record.rejections.push(c.reason);
    }
    return { ok: false, transient };
  }

  private countTokens(text: string): number {
    return this.options.countTokens ? this.options.countTokens(text) : Math.ceil(text.length / 4);
  }
}
