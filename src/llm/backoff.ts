/**
 * The longest wait tcompact honours from a server hint. openai-node ignores a Retry-After outside [0, 60 s) and falls
 * back to its own short backoff; a batch job that pauses every request on a 429 is better served by waiting the full
 * minute than by retrying within a second, so tcompact caps the hint at 60 s instead of discarding it.
 */
export const MAX_RETRY_DELAY_MS = 60_000;
/** First backoff when the server gives no hint; doubles per attempt up to {@link MAX_BACKOFF_MS}. */
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

interface RetryDelay {
  ms: number;
  /** `server`: from Retry-After / retry-after-ms; `backoff`: exponential with jitter. */
  source: 'server' | 'backoff';
  /** The server asked for more than {@link MAX_RETRY_DELAY_MS}. */
  capped: boolean;
}

/**
 * How long to wait before retry number `retry` (1 for the first retry). `random` returns a number in [0, 1): jitter
 * takes off up to 25 percent so that concurrent jobs do not retry in lockstep.
 */
export function retryDelay(retry: number, hintMs: number | undefined, random: () => number): RetryDelay {
  if (hintMs !== undefined && Number.isFinite(hintMs) && hintMs >= 0) {
    return { ms: Math.min(hintMs, MAX_RETRY_DELAY_MS), source: 'server', capped: hintMs > MAX_RETRY_DELAY_MS };
  }
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** Math.max(0, retry - 1), MAX_BACKOFF_MS);
  return { ms: Math.round(base * (1 - random() * 0.25)), source: 'backoff', capped: false };
}
