import * as models from 'gpt-tokenizer/models';

/**
 * Cline's truncation of what it sends (cline apps/vscode/src/core/context/context-management/ContextManager.ts and
 * context-window-utils.ts, as of 1f31738b32~1; before April 2025 src/core/sliding-window/index.ts): before each request
 * it sums the previous request's tokensIn + tokensOut + cacheWrites + cacheReads, and at or over the model's
 * `maxAllowedSize` deletes a range of the history from what it sends, growing the range at each cut. The history file
 * keeps every message; the range is recorded in `ui_messages.json` only.
 */

/** The history as the truncation rule sees it: each element's role, and each reply's recorded totals. */
export interface ClineHistoryShape {
  roles: readonly string[];
  replies: readonly { element: number; total: number; ts?: number }[];
  /**
   * Whether the file-read rewrites first in force at the request of this reply save 30% or more of the characters
   * sent (with the range then in force), so that Cline did not cut there (attemptFileReadOptimizationCore). @default never
   */
  rewriteSuffices?: (replyElement: number, range: [number, number] | undefined) => boolean;
}

/** A deleted range, inclusive, in history elements, in force from the request of the reply at `replyElement` on. */
export interface DeletedRange {
  replyElement: number;
  range: [number, number];
}

/** `maxAllowedSize` for a context window (getContextWindowInfo). */
export function maxAllowedSize(window: number): number {
  if (window === 64_000) return 37_000;
  if (window === 128_000) return 98_000;
  if (window === 200_000) return 160_000;
  return Math.max(window - 40_000, window * 0.8);
}

/** Cline's window for a model it does not know, and for the generic OpenAI-compatible provider. */
export const UNKNOWN_WINDOW = 128_000;

/** The model's context window as gpt-tokenizer's table lists it (by name, then without a provider prefix). */
export function windowOfModel(model: string | undefined): number | undefined {
  if (model === undefined) return undefined;
  const table = models as unknown as Record<string, { context_window?: unknown } | undefined>;
  const spec = table[model] ?? table[model.slice(model.lastIndexOf('/') + 1)];
  return typeof spec?.context_window === 'number' ? spec.context_window : undefined;
}

/**
 * Before April 2025 (src/core/sliding-window/index.ts) Cline kept message 0 alone and ended a range on a user message;
 * from then on (ContextManager, added 2025-03-20) it keeps messages 0 and 1 and ends a range on an assistant message.
 */
const CONTEXT_MANAGER_FROM = Date.UTC(2025, 3, 1);

/** getNextTruncationRange, for a history of `length` elements with `roles`. */
export function nextTruncationRange(
  roles: readonly string[],
  length: number,
  current: [number, number] | undefined,
  keep: 'half' | 'quarter',
  legacy: boolean,
): [number, number] {
  const start = legacy ? 1 : 2;
  const rest = current ? current[1] + 1 : start;
  const remove =
    keep === 'half' ? Math.floor((length - rest) / 4) * 2 : legacy ? Math.floor((length - rest) / 8) * 3 * 2 : Math.floor(((length - rest) * 3) / 4 / 2) * 2;
  let end = rest + remove - 1;
  const endsOn = legacy ? 'user' : 'assistant';
  if (roles[end] !== undefined && roles[end] !== endsOn) end -= 1;
  return [start, end];
}

/**
 * The ranges Cline's rule deletes with a window of `window` tokens: at each request whose previous request's totals
 * reach `maxAllowedSize`, the next range (a quarter kept when half the totals would still be over).
 */
export function ruleRanges(shape: ClineHistoryShape, window: number, forced: ReadonlySet<number> = new Set()): DeletedRange[] {
  const rewriteSuffices = shape.rewriteSuffices ?? (() => false);
  const limit = maxAllowedSize(window);
  const legacy = shape.replies.length > 0 && shape.replies[0].ts !== undefined && shape.replies[0].ts < CONTEXT_MANAGER_FROM;
  const out: DeletedRange[] = [];
  let current: [number, number] | undefined;
  const cut = (reply: number, keep: 'half' | 'quarter') => {
    // The history holds every element up to the request's user message, the one before the reply.
    const next = nextTruncationRange(shape.roles, reply, current, keep, legacy);
    if (next[1] < next[0] || (current && next[1] <= current[1])) return;
    current = next;
    if (out.length > 0 && out[out.length - 1].replyElement === reply) out.pop();
    out.push({ replyElement: reply, range: next });
  };
  for (let k = 1; k < shape.replies.length; k++) {
    const total = shape.replies[k - 1].total;
    const reply = shape.replies[k].element;
    if (total >= limit && (legacy || !rewriteSuffices(reply, current))) cut(reply, total / 2 > limit ? 'quarter' : 'half');
    // A context-window error: the request is retried with a quarter kept (task/index.ts handleContextWindowExceededError).
    if (forced.has(reply)) cut(reply, 'quarter');
  }
  return out;
}

/**
 * A reply whose recorded prompt is under the one before it shows a cut: without one the prompt only grows (a file-read
 * rewrite that saved enough to stand alone is told apart before, see ClineHistoryShape.rewriteSuffices). The margin
 * leaves the provider's own noise out.
 */
const DROP = 0.99;

/** The replies (by element) whose recorded prompt fell from the previous reply's: where the record shows a cut. */
export function recordedDrops(prompts: readonly { element: number; prompt: number }[]): Set<number> {
  const out = new Set<number>();
  for (let k = 1; k < prompts.length; k++) if (prompts[k - 1].prompt > 0 && prompts[k].prompt < prompts[k - 1].prompt * DROP) out.add(prompts[k].element);
  return out;
}

/** The windows tried when the model's own does not explain the record's drops: Cline's special cases, then common sizes. */
const CANDIDATE_WINDOWS = [UNKNOWN_WINDOW, 200_000, 64_000, 32_768, 256_000, 262_144, 400_000, 1_000_000, 1_048_576];

/** What the inference chose: the window, how many of its predicted cuts the record's drops confirm, and the drops. */
export interface InferredRanges {
  window: number;
  ranges: DeletedRange[];
  predicted: number;
  confirmed: number;
  drops: number;
}

/**
 * Cline's ranges inferred from the record alone: the rule with the model's window (Cline's 128k when the model is
 * unknown), or, when its predicted cuts leave more of the record's drops unexplained, the candidate window whose cuts
 * explain most. A drop no cut explains is a context-window error's cut (a quarter kept, on the request's retry).
 */
export function inferRanges(
  shape: ClineHistoryShape,
  prompts: readonly { element: number; prompt: number }[],
  modelWindow: number | undefined,
): InferredRanges {
  const drops = recordedDrops(prompts);
  const score = (window: number) => {
    const ranges = ruleRanges(shape, window);
    const confirmed = ranges.filter((r) => drops.has(r.replyElement)).length;
    return { window, predicted: ranges.length, confirmed, explained: new Set(ranges.map((r) => r.replyElement)) };
  };
  let best = score(modelWindow ?? UNKNOWN_WINDOW);
  if (best.confirmed < drops.size) {
    for (const w of CANDIDATE_WINDOWS) {
      const s = score(w);
      if (s.confirmed > best.confirmed) best = s;
    }
  }
  const errors = new Set([...drops].filter((d) => !best.explained.has(d) && !shape.rewriteSuffices?.(d, undefined)));
  return { window: best.window, ranges: ruleRanges(shape, best.window, errors), predicted: best.predicted, confirmed: best.confirmed, drops: drops.size };
}
