/**
 * Parsing of the headers OpenAI-compatible servers send about rate limits. Header names are case-insensitive; callers
 * pass a `get` function (fetch `Headers#get` fits).
 */
export type HeaderGetter = (name: string) => string | null | undefined;

/** What the server told us about its limits in one response; every field is absent when the header was. */
export interface RateLimitSnapshot {
  limitRequests?: number;
  limitTokens?: number;
  remainingRequests?: number;
  remainingTokens?: number;
  /** Milliseconds until the request budget is fully replenished. */
  resetRequestsMs?: number;
  /** Milliseconds until the token budget is fully replenished. */
  resetTokensMs?: number;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * Parses a Go-style duration as OpenAI sends in `x-ratelimit-reset-*`: `1s`, `6m0s`, `20ms`, `1h2m3.5s`, `0.5s`.
 * A bare number is taken as seconds. Returns undefined for anything else.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    end = re.lastIndex;
  }
  return end === s.length && end > 0 ? Math.round(total) : undefined;
}

function nonNegativeNumber(text: string | null | undefined): number | undefined {
  if (text == null || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function parseRateLimitHeaders(get: HeaderGetter): RateLimitSnapshot {
  const out: RateLimitSnapshot = {};
  const set = <K extends keyof RateLimitSnapshot>(key: K, value: number | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('limitRequests', nonNegativeNumber(get('x-ratelimit-limit-requests')));
  set('limitTokens', nonNegativeNumber(get('x-ratelimit-limit-tokens')));
  set('remainingRequests', nonNegativeNumber(get('x-ratelimit-remaining-requests')));
  set('remainingTokens', nonNegativeNumber(get('x-ratelimit-remaining-tokens')));
  const resetRequests = get('x-ratelimit-reset-requests');
  const resetTokens = get('x-ratelimit-reset-tokens');
  set('resetRequestsMs', resetRequests ? parseDuration(resetRequests) : undefined);
  set('resetTokensMs', resetTokens ? parseDuration(resetTokens) : undefined);
  return out;
}

/**
 * The wait the server asks for, in milliseconds, or undefined when it asks for none we can read. `retry-after-ms`
 * (not standard, sent by OpenAI) wins over `Retry-After`, which is either seconds or an HTTP date. A date in the past
 * gives a negative figure: callers treat it as no hint.
 */
export function parseRetryAfter(get: HeaderGetter, nowMs: number): number | undefined {
  const ms = get('retry-after-ms');
  if (ms != null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n)) return n;
  }
  const header = get('retry-after');
  if (header == null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : date - nowMs;
}
