import type { Outcome } from '../errors.js';
import pLimit, { type LimitFunction } from 'p-limit';
import { retryDelay } from './backoff.js';
import type { ChatClient, ChatRequest, ChatUsage } from './client.js';
import type { Clock } from './clock.js';
import { type LlmFailure, type LlmFailureCode, isRetryable } from './failure.js';
import type { RateLimiter } from './limiter.js';

export interface LlmJob {
  request: ChatRequest;
  /** Our count of the prompt's tokens: with `request.maxTokens`, what the job reserves in the TPM window. */
  promptTokens: number;
  /** Names the job in events (e.g. the transcript id). */
  label: string;
}

interface JobCommon {
  /** Requests sent for this job (1 when the first succeeded). */
  attempts: number;
  /** Failure code of each failed attempt, in order. */
  failures: LlmFailureCode[];
  /** Time spent waiting for the limiter, pauses and backoff (ms). Timing: keep out of compared files. */
  waitedMs: number;
}

interface JobAnswer {
  text: string;
  finishReason: string | null;
  usage: ChatUsage;
  /** The server sent no usage; the figures are our own counts. */
  usageEstimated: boolean;
}

export type JobOutcome = Outcome<JobAnswer, LlmFailure> & JobCommon;

export type QueueEvent =
  | { type: 'send'; at: number; job: string; attempt: number; promptTokens: number }
  | { type: 'failure'; at: number; job: string; attempt: number; code: LlmFailureCode; status?: number }
  | { type: 'pause'; at: number; job: string; ms: number; requestedMs?: number; capped: boolean }
  | { type: 'backoff'; at: number; job: string; ms: number }
  | { type: 'done'; at: number; job: string; ok: boolean; attempts: number };

interface LlmQueueOptions {
  /** Requests in flight at once. @default 4 */
  concurrency: number;
  /** Requests per job before it fails (the first try included). @default 3 */
  maxAttempts: number;
  clock: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Counts the answer's tokens when the server reports no usage. */
  countTokens: (text: string) => number;
  onEvent?: (event: QueueEvent) => void;
  /** Aborting stops new attempts and cancels requests in flight; their jobs fail with `aborted`. */
  signal?: AbortSignal;
}

interface QueueStats {
  /** Requests sent, retries included. */
  requests: number;
  failuresByCode: Partial<Record<LlmFailureCode, number>>;
  jobsOk: number;
  jobsFailed: number;
}

/**
 * Sends chat requests for the whole run: at most `concurrency` at once (p-limit), each through the shared rate limiter,
 * with retries on 408/409/429/5xx/connection failures (exponential backoff with jitter; the server's Retry-After when
 * it gives one, capped at 60 s). A 429 pauses the limiter, so every job waits, not only the one that was refused.
 * A job never throws: after `maxAttempts` it fails as data.
 */
export class LlmQueue {
  private readonly limit: LimitFunction;
  private readonly random: () => number;
  private closed = false;
  private readonly counters: QueueStats = { requests: 0, failuresByCode: {}, jobsOk: 0, jobsFailed: 0 };

  constructor(
    private readonly client: ChatClient,
    private readonly limiter: RateLimiter,
    private readonly options: LlmQueueOptions,
  ) {
    this.limit = pLimit(options.concurrency);
    this.random = options.random ?? Math.random;
  }

  get model(): string {
    return this.client.model;
  }

  stats(): QueueStats {
    return { ...this.counters, failuresByCode: { ...this.counters.failuresByCode } };
  }

  /** From now on, attempts not yet sent fail as `aborted` instead of waiting. */
  close(): void {
    this.closed = true;
  }

  run(job: LlmJob): Promise<JobOutcome> {
    return this.limit(() => this.attempt(job));
  }

  private emit(event: QueueEvent): void {
    this.options.onEvent?.(event);
  }

  private async attempt(job: LlmJob): Promise<JobOutcome> {
    const { clock, maxAttempts, signal } = this.options;
    const failures: LlmFailureCode[] = [];
    let waitedMs = 0;
    const finish = (outcome: JobOutcome): JobOutcome => {
      if (outcome.ok) this.counters.jobsOk++;
      else this.counters.jobsFailed++;
      this.emit({ type: 'done', at: clock.now(), job: job.label, ok: outcome.ok, attempts: outcome.attempts });
      return outcome;
    };
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted || this.closed)
        return finish({ ok: false, error: { code: 'aborted', message: 'the run was interrupted' }, attempts: attempt - 1, failures, waitedMs });
      const acquired = await this.limiter.acquire(job.promptTokens + job.request.maxTokens, signal);
      if (!acquired.ok) {
        failures.push(acquired.reason);
        return finish({ ok: false, error: { code: acquired.reason, message: acquired.message }, attempts: attempt - 1, failures, waitedMs });
      }
      waitedMs += acquired.waitedMs;
      this.counters.requests++;
      this.emit({ type: 'send', at: clock.now(), job: job.label, attempt, promptTokens: job.promptTokens });
      const outcome = await this.client.complete(job.request, signal);
      if (outcome.ok) {
        const answer = outcome.value;
        this.limiter.observe(answer.rateLimit);
        const usage = answer.usage ?? { promptTokens: job.promptTokens, completionTokens: this.options.countTokens(answer.text) };
        acquired.reservation.settle(usage.promptTokens + usage.completionTokens);
        return finish({
          ok: true,
          value: { text: answer.text, finishReason: answer.finishReason, usage, usageEstimated: answer.usage === null },
          attempts: attempt,
          failures,
          waitedMs,
        });
      }
      const failure = outcome.error;
      this.limiter.observe(failure.rateLimit);
      // A refused request (4xx) cost no tokens; one that failed on the server's side may have.
      acquired.reservation.settle(failure.status !== undefined && failure.status < 500 ? 0 : job.promptTokens);
      failures.push(failure.code);
      this.counters.failuresByCode[failure.code] = (this.counters.failuresByCode[failure.code] ?? 0) + 1;
      this.emit({
        type: 'failure',
        at: clock.now(),
        job: job.label,
        attempt,
        code: failure.code,
        ...(failure.status !== undefined ? { status: failure.status } : {}),
      });
      if (!isRetryable(failure.code) || attempt >= maxAttempts || signal?.aborted) {
        return finish({ ok: false, error: failure, attempts: attempt, failures, waitedMs });
      }
      const delay = retryDelay(attempt, failure.retryAfterMs, this.random);
      if (failure.code === 'rate_limited') {
        // The next acquire (of this job and of every other) waits out the pause.
        this.limiter.pause(delay.ms);
        this.emit({
          type: 'pause',
          at: clock.now(),
          job: job.label,
          ms: delay.ms,
          capped: delay.capped,
          ...(failure.retryAfterMs !== undefined ? { requestedMs: failure.retryAfterMs } : {}),
        });
      } else {
        this.emit({ type: 'backoff', at: clock.now(), job: job.label, ms: delay.ms });
        const before = clock.now();
        await clock.sleep(delay.ms, signal);
        waitedMs += clock.now() - before;
      }
    }
  }
}
