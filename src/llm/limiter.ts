import type { Clock } from './clock.js';
import type { RateLimitSnapshot } from './rate-limit-headers.js';

export const WINDOW_MS = 60_000;

interface RateLimiterOptions {
  /** Requests per minute; undefined means no limit of our own. */
  rpm?: number;
  /** Tokens per minute (prompt + completion); undefined means no limit of our own. */
  tpm?: number;
  clock: Clock;
}

/** A slot taken in the window. Settle it once usage is known: the window then counts what the request really used. */
interface Reservation {
  readonly at: number;
  readonly tokens: number;
  settle(actualTokens: number): void;
}

type AcquireResult = { ok: true; reservation: Reservation; waitedMs: number } | { ok: false; reason: 'exceeds_tpm' | 'aborted'; message: string };

interface Entry {
  at: number;
  tokens: number;
}

interface ServerBudget {
  remaining: number;
  until: number;
}

interface LimiterStats {
  /** Total time callers spent waiting in acquire, including pauses. */
  waitedMs: number;
  pauses: number;
  /** The longest single pause (ms). */
  longestPauseMs: number;
}

/**
 * Requests-per-minute and tokens-per-minute limits shared by every job of a run.
 *
 * It keeps a log of the last minute's requests rather than a classic token bucket: a bucket of capacity C refilled at
 * C per minute admits up to 2C in some 60-second window (a full bucket spent at once, then the refill), while the
 * limits here must hold in every window. A request reserves its prompt tokens plus max_tokens before it is sent and
 * is settled to what it really used. The server's `x-ratelimit-*` headers tighten the limits further, and a 429
 * pauses every caller until the time the server asked for. Callers are served first come, first served.
 */
export class RateLimiter {
  private readonly clock: Clock;
  private rpm: number | undefined;
  private tpm: number | undefined;
  private readonly log: Entry[] = [];
  private pausedUntil = 0;
  private serverRequests: ServerBudget | undefined;
  private serverTokens: ServerBudget | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly counters: LimiterStats = { waitedMs: 0, pauses: 0, longestPauseMs: 0 };

  constructor(options: RateLimiterOptions) {
    this.clock = options.clock;
    this.rpm = options.rpm;
    this.tpm = options.tpm;
  }

  get limits(): { rpm: number | undefined; tpm: number | undefined } {
    return { rpm: this.rpm, tpm: this.tpm };
  }

  stats(): LimiterStats {
    return { ...this.counters };
  }

  /** The time until which every caller waits (epoch ms); 0 when not paused. */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /** Waits until a request of `tokens` fits every limit, then records it; gives up when `signal` aborts. */
  acquire(tokens: number, signal?: AbortSignal): Promise<AcquireResult> {
    const run = this.chain.then(() => this.waitAndReserve(tokens, signal));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stops every caller for `ms` from now (a 429). Pauses do not stack: the later end wins. */
  pause(ms: number): void {
    if (ms <= 0) return;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.counters.pauses++;
    this.counters.longestPauseMs = Math.max(this.counters.longestPauseMs, ms);
  }

  /** Tightens the limits from what the server said about its own budget. */
  observe(snapshot: RateLimitSnapshot | undefined): void {
    if (!snapshot) return;
    const now = this.clock.now();
    if (snapshot.limitRequests !== undefined && snapshot.limitRequests > 0 && (this.rpm === undefined || snapshot.limitRequests < this.rpm)) {
      this.rpm = snapshot.limitRequests;
    }
    if (snapshot.limitTokens !== undefined && snapshot.limitTokens > 0 && (this.tpm === undefined || snapshot.limitTokens < this.tpm)) {
      this.tpm = snapshot.limitTokens;
    }
    if (snapshot.remainingRequests !== undefined) {
      this.serverRequests = { remaining: snapshot.remainingRequests, until: now + (snapshot.resetRequestsMs ?? WINDOW_MS) };
    }
    if (snapshot.remainingTokens !== undefined) {
      this.serverTokens = { remaining: snapshot.remainingTokens, until: now + (snapshot.resetTokensMs ?? WINDOW_MS) };
    }
  }

  private async waitAndReserve(tokens: number, signal: AbortSignal | undefined): Promise<AcquireResult> {
    if (this.tpm !== undefined && tokens > this.tpm) {
      return { ok: false, reason: 'exceeds_tpm', message: `the request needs ${tokens} tokens, more than the limit of ${this.tpm} per minute` };
    }
    const started = this.clock.now();
    for (;;) {
      if (signal?.aborted) return { ok: false, reason: 'aborted', message: 'the run was interrupted' };
      const now = this.clock.now();
      const wait = this.waitFor(tokens, now);
      if (wait <= 0) {
        const entry: Entry = { at: now, tokens };
        this.log.push(entry);
        if (this.serverRequests) this.serverRequests.remaining--;
        if (this.serverTokens) this.serverTokens.remaining -= tokens;
        const waitedMs = now - started;
        this.counters.waitedMs += waitedMs;
        const settle = (actual: number): void => {
          entry.tokens = Math.max(0, actual);
          // The server saw the request at some time between this reservation and its answer: counting it from the
          // answer keeps every window the server measures within the limits too (it was over by the network time).
          entry.at = Math.max(entry.at, this.clock.now());
          this.log.sort((x, y) => x.at - y.at);
        };
        return { ok: true, waitedMs, reservation: { at: now, tokens, settle } };
      }
      await this.clock.sleep(wait, signal);
    }
  }

  /** How long a request of `tokens` must wait at `now`; 0 when it may go. */
  private waitFor(tokens: number, now: number): number {
    if (this.pausedUntil > now) return this.pausedUntil - now;
    // An entry counts while now < at + WINDOW_MS, so no window [s, s + 60 s) ever holds more than the limit.
    while (this.log.length > 0 && this.log[0].at + WINDOW_MS <= now) this.log.shift();
    let wait = 0;
    if (this.rpm !== undefined && this.log.length >= this.rpm) {
      wait = Math.max(wait, this.log[this.log.length - this.rpm].at + WINDOW_MS - now);
    }
    if (this.tpm !== undefined) {
      let used = 0;
      for (const e of this.log) used += e.tokens;
      // Drop the oldest entries until the request fits; it may go when the last dropped one leaves the window.
      for (let i = 0; used + tokens > this.tpm && i < this.log.length; i++) {
        used -= this.log[i].tokens;
        if (used + tokens <= this.tpm) wait = Math.max(wait, this.log[i].at + WINDOW_MS - now);
      }
    }
    const sr = this.serverRequests;
    if (sr && now < sr.until && sr.remaining < 1) wait = Math.max(wait, sr.until - now);
    const st = this.serverTokens;
    if (st && now < st.until && st.remaining < tokens) wait = Math.max(wait, st.until - now);
    return wait;
  }
}
