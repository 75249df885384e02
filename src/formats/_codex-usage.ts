import { isObject } from './_items.js';

const FIELDS = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens', 'total_tokens'] as const;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Which Codex `token_count` events price a request. Codex sends the event when a response completes, and sends it again
 * unchanged when a request or a turn starts (with `info: null` before the session's first response), and with a zero
 * `last_token_usage` right after a compaction. A request is an event whose `total_token_usage` changed and whose
 * `last_token_usage.input_tokens` is above 0; its usage is `last_token_usage`, or, for an event without it, the change
 * of `total_token_usage`. ccusage's Codex reader counts the same events (docs/formats.md).
 */
export class TokenCounts {
  private total: Record<string, number> | undefined;

  /** The usage of the request this `token_count` payload prices, or undefined for a repeat, a null or a zero. */
  request(payload: Record<string, unknown>): Record<string, unknown> | undefined {
    const info = payload.info;
    if (!isObject(info)) return undefined;
    const last = isObject(info.last_token_usage) ? info.last_token_usage : undefined;
    let usage = last;
    if (isObject(info.total_token_usage)) {
      const total = Object.fromEntries(FIELDS.map((f) => [f, num((info.total_token_usage as Record<string, unknown>)[f])]));
      const previous = this.total;
      this.total = total;
      if (previous && FIELDS.every((f) => previous[f] === total[f])) return undefined;
      usage ??= Object.fromEntries(FIELDS.map((f) => [f, total[f] - (previous?.[f] ?? 0)]));
    }
    return usage && num(usage.input_tokens) > 0 ? usage : undefined;
  }
}
