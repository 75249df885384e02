import { z } from 'zod';
import { TcompactError } from '../errors.js';
import { formatIssues } from '../model/parse.js';
import { TOKENIZER_NAMES } from '../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../tokens/window.js';
import './auto.js'; // registers the `auto` preset
import { PRESETS } from './presets.js';
import { STRATEGIES } from './registry.js';
import type { PipelineStep } from './runner.js';
import { ToolHintsSchema, mergeToolHints } from './tool-hints.js';

/** A compaction job's configuration: the `--config FILE` JSON, with CLI flags applied over it. */
export const CompactConfigSchema = z.strictObject({
  /** Strategies and presets, applied left to right. @default ["auto"] */
  strategies: z.array(z.string()).min(1).default(['auto']),
  /** Last turns never modified (a turn starts at a user message). @default 1 */
  keepLast: z.number().int().min(0).default(1),
  /** Leading messages never modified. @default the system/developer messages and the first user message */
  keepFirst: z.number().int().min(0).optional(),
  /** Context window in tokens, for thresholds. @default 200000 */
  window: z.number().int().positive().default(DEFAULT_WINDOW),
  /** @default "o200k_base" */
  tokenizer: z.enum(TOKENIZER_NAMES).default('o200k_base'),
  /** Keep replaced content in the side store so `restore` works. @default true */
  refs: z.boolean().default(true),
  /** Per-tool hints merged over the defaults (see tool-hints.ts). @default {} */
  toolHints: ToolHintsSchema.default({}),
  /** Per-strategy (or preset, e.g. `auto`) options, by name; validated by that strategy's or preset's schema. @default {} */
  options: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});
export type CompactConfig = z.infer<typeof CompactConfigSchema>;

/** Validates a config value (from a file or built from flags); the error names every bad path. */
export function parseCompactConfig(value: unknown, source = 'config'): CompactConfig {
  const parsed = CompactConfigSchema.safeParse(value);
  if (!parsed.success) throw new TcompactError('E_CONFIG', `${source}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** Keys every strategy may receive from the top level of the config, when its schema declares them. */
function sharedFields(config: CompactConfig): Record<string, unknown> {
  const shared: Record<string, unknown> = { keepLast: config.keepLast, toolHints: mergeToolHints(config.toolHints), window: config.window };
  if (config.keepFirst !== undefined) shared.keepFirst = config.keepFirst;
  return shared;
}

function schemaKeys(schema: z.ZodType): Set<string> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return new Set(shape ? Object.keys(shape) : []);
}

/** Builds the step for one strategy: shared fields its schema declares, then its own options, validated. */
export function stepFor(name: string, config: CompactConfig): PipelineStep {
  const strategy = STRATEGIES[name];
  if (!strategy) {
    const known = [...Object.keys(STRATEGIES), ...Object.keys(PRESETS)].sort().join(', ');
    throw new TcompactError('E_CONFIG', `unknown strategy "${name}" (known: ${known})`);
  }
  const keys = schemaKeys(strategy.config);
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(sharedFields(config))) if (keys.has(key)) input[key] = value;
  Object.assign(input, config.options[name] ?? {});
  const parsed = strategy.config.safeParse(input);
  if (!parsed.success) throw new TcompactError('E_CONFIG', formatIssues(parsed.error.issues, ['options', name]));
  return { strategy, config: parsed.data };
}

/**
 * The steps of a job: presets expanded, each strategy configured, and `sanitize` first and last (when registered)
 * so every pipeline starts from and ends in a valid transcript.
 */
export function buildSteps(config: CompactConfig): PipelineStep[] {
  for (const name of Object.keys(config.options)) {
    if (!STRATEGIES[name] && !PRESETS[name]) throw new TcompactError('E_CONFIG', `options.${name}: no strategy or preset of that name`);
  }
  const steps: PipelineStep[] = [];
  for (const name of config.strategies) {
    const preset = PRESETS[name];
    if (preset) steps.push(...preset(config, (n) => stepFor(n, config)));
    else steps.push(stepFor(name, config));
  }
  if (STRATEGIES.sanitize) {
    if (steps[0]?.strategy.name !== 'sanitize') steps.unshift(stepFor('sanitize', config));
    if (steps.length === 1 || steps[steps.length - 1].strategy.name !== 'sanitize') steps.push(stepFor('sanitize', config));
  }
  return steps;
}
