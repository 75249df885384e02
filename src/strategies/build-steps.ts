import type { z } from 'zod';
import { TcompactError } from '../errors.js';
import { parseConfig } from '../model/parse.js';
import type { CompactConfig } from './compact-config.js';
import { PRESETS } from './presets.js';
import { STRATEGIES } from './registry.js';
import { type PipelineStep, requireSyncSteps } from './runner.js';
import { mergeToolHints } from './tool-hints.js';

/** Keys every strategy may receive from the top level of the config, when its schema declares them. */
function sharedFields(config: CompactConfig): Record<string, unknown> {
  const shared: Record<string, unknown> = {
    keepLast: config.keepLast,
    keepMessages: config.keepMessages,
    keepResults: config.keepResults,
    toolHints: mergeToolHints(config.toolHints),
    window: config.window,
  };
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
  return { strategy, config: parseConfig(strategy.config, input, { path: ['options', name] }) };
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

/** The steps of a job that runs synchronously (compact, eval, simulate, the context manager): no async step allowed. */
export function buildSyncSteps(config: CompactConfig, command: string): PipelineStep[] {
  const steps = buildSteps(config);
  requireSyncSteps(steps, command);
  return steps;
}
