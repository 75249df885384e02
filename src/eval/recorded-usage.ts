import type { Transcript } from '../model/transcript.js';
import type { Prices } from './pricing.js';

/**
 * The usage a source recorded for its model calls, from the `usage` the adapters put on assistant messages: Claude Code
 * (Anthropic: `input_tokens` uncached, plus `cache_creation_input_tokens` and `cache_read_input_tokens`) and Codex
 * (OpenAI: `input_tokens` in total, of which `cached_input_tokens` were cache reads). What the session really billed,
 * its own compaction and caching included.
 */
export interface RecordedUsage {
  /** Assistant messages that carry a usage record. */
  calls: number;
  /** input_tokens + cache_creation_input_tokens + cache_read_input_tokens, summed. */
  input: number;
  /** input_tokens: input neither written to nor read from the cache. */
  uncachedInput: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
  /** The first recorded call's whole input: the system prompt and tool definitions that the transcript does not hold, plus its first messages. */
  firstCallInput: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function recordedUsage(transcript: Transcript): RecordedUsage | undefined {
  const r: RecordedUsage = { calls: 0, input: 0, uncachedInput: 0, cacheCreation: 0, cacheRead: 0, output: 0, firstCallInput: 0 };
  for (const m of transcript.messages) {
    if (m.role !== 'assistant') continue;
    const usage = (m as Record<string, unknown>).usage;
    if (usage === null || typeof usage !== 'object') continue;
    const u = usage as Record<string, unknown>;
    const openAIStyle = 'cached_input_tokens' in u && !('cache_read_input_tokens' in u);
    const read = num(openAIStyle ? u.cached_input_tokens : u.cache_read_input_tokens);
    const creation = num(u.cache_creation_input_tokens);
    const uncached = openAIStyle ? Math.max(0, num(u.input_tokens) - read) : num(u.input_tokens);
    if (r.calls === 0) r.firstCallInput = uncached + creation + read;
    r.calls++;
    r.uncachedInput += uncached;
    r.cacheCreation += creation;
    r.cacheRead += read;
    r.input += uncached + creation + read;
    r.output += num(u.output_tokens);
  }
  return r.calls > 0 ? r : undefined;
}

/** What the recorded usage cost at `prices`: with caching as billed, and as if every input token were plain input. */
export function recordedCost(r: RecordedUsage, prices: Prices): { withoutCache: number; withCache: number } {
  const out = r.output * prices.output;
  return {
    withoutCache: (r.input * prices.input + out) / 1e6,
    withCache: (r.uncachedInput * prices.input + r.cacheCreation * prices.cacheWrite + r.cacheRead * prices.cached + out) / 1e6,
  };
}
