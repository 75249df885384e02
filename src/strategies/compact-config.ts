import * as z from 'zod';
import { parseConfig } from '../model/parse.js';
import { DEFAULT_TOKENIZER_ENGINE, TOKENIZER_ENGINES } from '../tokens/bpe-engines.js';
import { TOKENIZER_NAMES } from '../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../tokens/window.js';
import { DEFAULT_KEEP_MESSAGES, DEFAULT_KEEP_RESULTS } from './boundaries.js';
import { ToolHintsSchema } from './tool-hints.js';

/** A compaction job's configuration: the `--config FILE` JSON, with CLI flags applied over it. */
export const CompactConfigSchema = z.strictObject({
  /** Strategies and presets, applied left to right. @default ["auto"] */
  strategies: z.array(z.string()).min(1).default(['auto']),
  /** Last whole turns never modified (a turn starts at a user message). @default 0 */
  keepLast: z.number().int().min(0).default(0),
  /** Last messages never modified. @default 10 */
  keepMessages: z.number().int().min(0).default(DEFAULT_KEEP_MESSAGES),
  /** Last tool results never modified, with their calls. @default 10 */
  keepResults: z.number().int().min(0).default(DEFAULT_KEEP_RESULTS),
  /** Leading messages never modified. @default the system/developer messages and the first user message */
  keepFirst: z.number().int().min(0).optional(),
  /** Context window in tokens, for thresholds. @default 200000 */
  window: z.number().int().positive().default(DEFAULT_WINDOW),
  /** @default "o200k_base" */
  tokenizer: z.enum(TOKENIZER_NAMES).default('o200k_base'),
  /** The library that counts a BPE encoding (all give identical counts). @default "tcompact" */
  tokenizerEngine: z.enum(TOKENIZER_ENGINES).default(DEFAULT_TOKENIZER_ENGINE),
  /** Keep replaced content in the side store so `restore` works. @default true */
  refs: z.boolean().default(true),
  /** Per-tool hints merged over the defaults (see tool-hints.ts). @default {} */
  toolHints: ToolHintsSchema.default({}),
  /** Per-strategy (or preset, e.g. `auto`) options, by name; validated by that strategy's or preset's schema. @default {} */
  options: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});
export type CompactConfig = z.infer<typeof CompactConfigSchema>;
export type CompactConfigInput = z.input<typeof CompactConfigSchema>;

/** Validates a config value (from a file or built from flags); the error names every bad path. */
export function parseCompactConfig(value: unknown, source = 'config'): CompactConfig {
  return parseConfig(CompactConfigSchema, value, { source });
}
