import * as z from 'zod';
import { DEFAULT_MAX_ATTEMPTS } from '../context/options.js';
import type { LlmSession } from '../llm/session.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../tokens/window.js';
import { CACHE_MODEL_NAMES, DEFAULT_CALL_GAP_SECONDS } from '../provider/cache-rules.js';
import { PriceTableSchema } from '../provider/model-prices.js';
import { PriceFlagsSchema } from './billing/prices.js';
import { DEFAULT_POLICIES } from './policies/built-in.js';

const count = z.number().int().min(0);

/** How `simulate` and `tune` replay an archive: every default is here. */
export const ReplayOptionsSchema = z.strictObject({
  /** Policy names (see policies/resolve.ts); `none` is always replayed first, as the baseline. @default the built-in ones */
  policies: z.array(z.string().min(1)).default([...DEFAULT_POLICIES]),
  /** The model's context window, in tokens. @default 200000 */
  window: z.number().int().positive().default(DEFAULT_WINDOW),
  /**
   * Prices that bill every call, each one given winning over the models' list prices; the cache's write and read prices
   * follow from the model's list price, else from the cache model, unless given. @default none: each model's list price
   */
  prices: PriceFlagsSchema.prefault({}),
  /**
   * List prices by model that override or extend the built-in table (provider/model-prices.ts; `--prices FILE`).
   * @default none: the built-in table
   */
  modelPrices: PriceTableSchema.optional(),
  /** The prompt cache of every transcript. @default by source (billing/cache-choice.ts) */
  cache: z.enum(CACHE_MODEL_NAMES).optional(),
  /** Seconds between calls of a transcript without timestamps. @default 10 */
  callGapSeconds: z.number().positive().default(DEFAULT_CALL_GAP_SECONDS),
  /** Calls after a compaction with no new attempt. @default 0 */
  cooldown: count.default(0),
  /** Compactions in a row that stay above the trigger before a policy's manager is stuck. @default 3 */
  maxAttempts: z.number().int().min(1).default(DEFAULT_MAX_ATTEMPTS),
  /**
   * Tokens added to every prompt for the system prompt and tools the transcripts do not record; `recorded`: each
   * transcript's own, its first recorded call's input minus the replayed first prompt (0 without recorded usage).
   * @default 0
   */
  basePrompt: z.union([count, z.literal('recorded')]).default(0),
  /**
   * Provider tokens per token of the tokenizer, applied to every count of the replay (prompts, outputs, the policies'
   * thresholds): a number for every transcript, or `recorded` for each transcript's own ratio measured from its
   * recorded usage (see billing/token-ratio.ts; 1 without). @default 1
   */
  tokenRatio: z.union([z.number().positive(), z.literal('recorded')]).default(1),
  /**
   * With `tokenRatio: 'recorded'`: the archive's scale (the medians of the transcripts' own, `ArchiveFallbacks`, taken
   * in a first pass) for a transcript whose record has too few clean intervals to measure its own.
   * @default none: such a transcript counts with the tokenizer as it is
   */
  tokenScaleFallback: z.strictObject({ ratio: z.number().positive(), framing: z.number().nonnegative() }).optional(),
  /**
   * With `basePrompt: 'recorded'`: each group of sessions' base prompt (the median of those with per-call records,
   * `ArchiveFallbacks`, taken in the same first pass, by basePromptGroup) for a session whose source records only its totals.
   * @default none: such a session's base prompt is 0 (unknown)
   */
  basePromptFallback: z.record(z.string(), z.strictObject({ tokens: count, sessions: z.number().int().positive() })).optional(),
  /** The protected tail of the policies' strategies. @default the strategies' defaults */
  tail: z.strictObject({ keepLast: count.optional(), keepMessages: count.optional(), keepResults: count.optional() }).optional(),
  /** summarize's focus (`--focus`). @default none */
  focus: z.string().optional(),
  /**
   * Bill the policies' LLM compaction calls at the Batch API's price: these prices per million tokens, else half the
   * model's list price. @default the online price
   */
  batch: z.strictObject({ in: z.number().nonnegative().optional(), out: z.number().nonnegative().optional() }).optional(),
  /**
   * Hold the `source` replay of each transcript with recorded usage against its record, call by call (see
   * fidelity/session-fidelity.ts), replaying `source` for it when it is not among the policies. @default true
   */
  fidelity: z.boolean().default(true),
  /** Score hindsight at every micro-compaction as well as at compactions (how `tune` weighs masking against clearing). @default false */
  hindsightAtMicro: z.boolean().default(false),
});

export type ReplayOptions = z.output<typeof ReplayOptionsSchema>;
export type ReplayOptionsInput = z.input<typeof ReplayOptionsSchema>;

/** What a replay runs with beside its options: the counter, and the model of the policies' LLM steps. */
export interface ReplayDeps {
  tokenizer: Tokenizer;
  /** @default none: a policy with an LLM step is refused */
  llm?: LlmSession;
}
