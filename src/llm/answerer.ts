import { type AnswerCache, cacheKey } from './cache.js';
import type { LlmFailure, LlmFailureCode } from './failure.js';
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
}

export function emptyRecord(): AskRecord {
  return { requests: 0, answers: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, usageEstimated: false, failures: [], rejections: [], notes: [], waitedMs: 0 };
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
  return into;
}

export type AskResult<T> =
  | { ok: true; value: T; record: AskRecord }
  /** `failure` is set when a request failed for good; otherwise every answer was rejected. */
  | { ok: false; failure?: LlmFailure; record: AskRecord };

export interface AnswererOptions {
  /** Answers asked for per question before giving up on rejected ones. */
  maxAttempts: number;
  /** Request parameters that change the answer (max tokens, temperature): part of the cache key. */
  params: Record<string, unknown>;
}

/** Answers kept in memory so identical questions of one run pay once even without a cache directory. */
const MEMORY_ENTRIES = 2000;

/**
 * Asks the model a question whose answer must pass a check: from the cache when an accepted answer exists, otherwise
 * through the queue, asking again (up to maxAttempts answers) when an answer is rejected. Identical questions asked at
 * the same time share one request. Never throws.
 */
export class Answerer {
  private readonly inflight = new Map<string, Promise<string | undefined>>();
  private readonly memory = new Map<string, string>();

  constructor(
    private readonly queue: LlmQueue,
    private readonly cache: AnswerCache | null,
    private readonly meter: UsageMeter,
    private readonly options: AnswererOptions,
  ) {}

  /** Estimated US dollars of what a record paid for; null when the model's price is unknown. */
  costOf(record: AskRecord): number | null {
    return costOf({ promptTokens: record.promptTokens, completionTokens: record.completionTokens }, this.meter.price);
  }

  /** The cache key of a job: model, prompt version, parameters and the exact messages sent. */
  keyOf(job: LlmJob, promptVersion: string): string {
    return cacheKey({ model: this.queue.model, promptVersion, params: this.options.params, messages: job.request.messages });
  }

  async ask<T>(job: LlmJob, promptVersion: string, check: Check<T>): Promise<AskResult<T>> {
    const record = emptyRecord();
    const key = this.keyOf(job, promptVersion);
    const hit = (value: T): AskResult<T> => {
      record.cacheHits++;
      this.meter.recordCacheHit();
      return { ok: true, value, record };
    };
    const shared = this.inflight.get(key);
    if (shared) {
      const text = await shared;
      const c = text === undefined ? undefined : check(text);
      if (c?.ok) return hit(c.value);
    }
    // Registered before any await, so an identical question arriving meanwhile waits for this one.
    let accept: (text: string | undefined) => void = () => undefined;
    const mine = new Promise<string | undefined>((resolve) => (accept = resolve));
    this.inflight.set(key, mine);
    try {
      for (const text of [this.memory.get(key), (await this.cache?.get(key))?.text]) {
        const c = text === undefined ? undefined : check(text);
        if (c?.ok) {
          accept(text);
          return hit(c.value);
        }
      }
      const result = await this.fetch(job, check, record);
      if (!result.ok) {
        accept(undefined);
        return result.failure ? { ok: false, failure: result.failure, record } : { ok: false, record };
      }
      this.remember(key, result.text);
      if (this.cache) {
        const error = await this.cache.put(key, { text: result.text, usage: result.usage });
        if (error) record.notes.push(`cache write failed (answer used anyway): ${error}`);
      }
      accept(result.text);
      return { ok: true, value: result.value, record };
    } finally {
      accept(undefined);
      if (this.inflight.get(key) === mine) this.inflight.delete(key);
    }
  }

  private remember(key: string, text: string): void {
    if (this.memory.size >= MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
    this.memory.set(key, text);
  }

  private async fetch<T>(
    job: LlmJob,
    check: Check<T>,
    record: AskRecord,
  ): Promise<{ ok: true; value: T; text: string; usage: { promptTokens: number; completionTokens: number } } | { ok: false; failure?: LlmFailure }> {
    for (let answer = 1; answer <= this.options.maxAttempts; answer++) {
      const out = await this.queue.run(job);
      record.requests += out.attempts;
      record.failures.push(...out.failures);
      record.waitedMs += out.waitedMs;
      if (!out.ok && out.failure.code === 'bad_response') {
        // A 2xx that is not a chat completion is a garbage answer: ask again, like for a rejected one.
        record.rejections.push(`bad response: ${out.failure.message}`);
        continue;
      }
      if (!out.ok) return { ok: false, failure: out.failure };
      record.answers++;
      record.promptTokens += out.usage.promptTokens;
      record.completionTokens += out.usage.completionTokens;
      record.usageEstimated ||= out.usageEstimated;
      this.meter.recordAnswer(out.usage, out.usageEstimated);
      const c = check(out.text);
      if (c.ok) return { ok: true, value: c.value, text: out.text, usage: out.usage };
      record.rejections.push(c.reason);
    }
    return { ok: false };
  }
}
