import * as z from 'zod';
import { parseConfig } from '../model/parse.js';
import { toolDefSchema } from '../model/transcript.js';
import { CACHE_MODEL_NAMES } from '../provider/cache-rules.js';
import { TOKENIZER_NAMES } from '../tokens/tokenizer.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';

const CONTEXT_MODES = ['auto', 'approval', 'manual'] as const;

const fraction = z.number().positive().max(1);

/** The tool results and messages a cache-aware edit keeps whole at the end of the prompt, by default. */
export const DEFAULT_EDIT_TAIL = { results: 1, messages: 1 } as const;

/** Compaction attempts in a row that stay above the trigger before a manager gives up. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Fractions of the window at which the prompt changes status; each must be below the next. */
const ContextThresholdsSchema = z
  .strictObject({
    /** @default 0.8 */
    warning: fraction.default(DEFAULT_THRESHOLDS.warning),
    /** @default 0.9 */
    compaction: fraction.default(DEFAULT_THRESHOLDS.compaction),
    /** @default 0.98 */
    hardLimit: fraction.default(DEFAULT_THRESHOLDS.hardLimit),
  })
  .superRefine((t, ctx) => {
    if (!(t.warning < t.compaction)) {
      ctx.addIssue({ code: 'custom', path: ['compaction'], message: `must be above warning (${t.warning}), got ${t.compaction}` });
    }
    if (!(t.compaction < t.hardLimit)) {
      ctx.addIssue({ code: 'custom', path: ['hardLimit'], message: `must be above compaction (${t.compaction}), got ${t.hardLimit}` });
    }
  });

/** Options of a {@link ContextManager}. Every default is here. */
const ContextManagerOptionsSchema = z.strictObject({
  /** The model's context window, in tokens. */
  window: z.number().int().positive(),
  /** @default { warning: 0.8, compaction: 0.9, hardLimit: 0.98 } */
  thresholds: ContextThresholdsSchema.prefault({}),
  /**
   * Prompt size in tokens that triggers compaction, instead of `thresholds.compaction` x `window` (a fixed budget such
   * as "compact at 200k tokens" whatever the window). @default none
   */
  compactAtTokens: z.number().int().positive().optional(),
  /**
   * `auto`: compact as soon as the prompt passes the trigger; `approval`: report `needs_approval` and compact when the
   * caller calls `compact()`; `manual`: never compact from `check()`, only report. @default 'auto'
   */
  mode: z.enum(CONTEXT_MODES).default('auto'),
  /** Checks after a compaction attempt (or a declined approval) during which no compaction is attempted. @default 0 */
  cooldown: z.number().int().min(0).default(0),
  /**
   * Compaction attempts in a row that leave the prompt above the trigger before the manager gives up: it is then
   * `stuck` and attempts no more compaction. @default 3
   */
  maxAttempts: z.number().int().min(1).default(DEFAULT_MAX_ATTEMPTS),
  /**
   * The provider's prompt cache the manager weighs its edits against (see `edits`): an edit makes the provider write
   * again everything after the first message it changes (`google` for an agent on Gemini; its TTL is the 5-minute floor,
   * as no record is at hand). @default "anthropic-5m"
   */
  cache: z.enum(CACHE_MODEL_NAMES).default('anthropic-5m'),
  /**
   * Cache-aware edits: strategies run when the cache is cold (the gap since the last call passed its TTL, so the
   * rewrite costs nothing extra), when the tokens they free pay for the rewrite over the calls expected before the cache
   * goes cold again (`expectedCalls`), or when the prompt reaches the trigger. Nothing before the last edit's boundary
   * changes again (a full compaction aside), and the placeholders are stable, so the cached prefix stays whole between
   * edits. Their protected tail is the strategies' default budget (the last 10 tool results and messages, and the last
   * request). `[]` turns them off. @default ["mask-observations"]
   */
  edits: z.array(z.string().min(1)).default(['mask-observations']),
  /**
   * The tool results and messages a cache-aware edit keeps whole at the end of the prompt. A small tail keeps each
   * edit near the end, where Anthropic's lookback (20 content blocks) still finds the prompt cached before it, so a
   * result masked as soon as a newer one follows costs a rewrite of the last few messages only. The least-cost schedules
   * that keep 95% of what sessions need again (`optimal@0.95`) keep one tool use whole in most of them: the default.
   * @default { results: 1, messages: 1 }
   */
  editTail: z
    .strictObject({
      results: z.number().int().min(0).default(DEFAULT_EDIT_TAIL.results),
      messages: z.number().int().min(0).default(DEFAULT_EDIT_TAIL.messages),
    })
    .prefault({}),
  /**
   * Calls expected after an edit before the cache goes cold again (`tcompact tune` measures it on an archive). The
   * shared corpus's Claude Code sessions have about 50 after a call at the 5-minute TTL. @default 50
   */
  expectedCalls: z.number().positive().default(50),
  /**
   * Micro-compaction on every call: strategies run at every `check()`, below the trigger too, as J-CLI and Claude Code
   * mask old tool results on every call. Each change rewrites the cached prompt from that point, so it costs more than it
   * saves once caching is billed; the cache-aware `edits` replace it. @default []
   */
  micro: z.array(z.string().min(1)).default([]),
  /**
   * Strategies and presets of the compaction at the trigger, when the constructor is given no handler.
   * @default ["auto"]
   */
  strategies: z.array(z.string().min(1)).min(1).default(['auto']),
  /** Counts tokens for the strategies (their thresholds and the sizes they report). @default "o200k_base" */
  tokenizer: z.enum(TOKENIZER_NAMES).default('o200k_base'),
  /** Tool definitions sent with every prompt: counted in the sizes the built-in handlers report. @default none */
  tools: z.array(toolDefSchema()).optional(),
  /** Tokens every prompt carries besides messages and tools (a system prompt the caller adds). @default 0 */
  extraTokens: z.number().int().min(0).default(0),
});

export type ContextManagerOptions = z.output<typeof ContextManagerOptionsSchema>;
export type ContextManagerOptionsInput = z.input<typeof ContextManagerOptionsSchema>;

/** Validates the options; the error names every bad path (`thresholds.hardLimit: must be above compaction (0.9), got 0.85`). */
export function parseContextManagerOptions(value: unknown): ContextManagerOptions {
  return parseConfig(ContextManagerOptionsSchema, value);
}
