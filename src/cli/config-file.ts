import { readFile } from 'node:fs/promises';
import { TcompactError } from '../errors.js';
import { withModelSummarizer } from '../strategies/auto.js';
import { buildSteps } from '../strategies/build-steps.js';
import { type CompactConfig, parseCompactConfig } from '../strategies/compact-config.js';
import type { PipelineStep } from '../strategies/runner.js';
import type { COMPACTION_FLAGS, TAIL_FLAGS } from './compaction-flags.js';
import type { FlagValues } from './flags.js';

/** Settings given as flags; each one set replaces the config file's value (`options` entries: per key). */
interface ConfigOverrides {
  strategies?: string[];
  keepLast?: number;
  keepMessages?: number;
  keepResults?: number;
  window?: number;
  tokenizer?: string;
  tokenizerEngine?: string;
  refs?: boolean;
  options?: Record<string, Record<string, unknown>>;
}

/** The compaction flags (`run`, `compact`) as overrides: each one given replaces the config file's value. */
export function compactFlagOverrides(values: FlagValues<typeof COMPACTION_FLAGS>): ConfigOverrides {
  return {
    strategies: values.strategy,
    ...tailFlagOverrides(values),
    window: values.window,
    tokenizer: values.tokenizer,
    tokenizerEngine: values['tokenizer-engine'],
    refs: values['no-refs'] ? false : undefined,
  };
}

/** --keep-last, --keep-messages, --keep-results: the protected tail (see protectedRange), for compact, run, eval and simulate. */
export function tailFlagOverrides(values: FlagValues<typeof TAIL_FLAGS>): Pick<ConfigOverrides, 'keepLast' | 'keepMessages' | 'keepResults'> {
  return { keepLast: values['keep-last'], keepMessages: values['keep-messages'], keepResults: values['keep-results'] };
}

/** Reads a `--config FILE` as a JSON object; unreadable or malformed files are E_CONFIG errors naming the file. */
async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TcompactError('E_CONFIG', `${path}: cannot read the config file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TcompactError('E_CONFIG', `${path}: not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TcompactError('E_CONFIG', `${path}: expected a JSON object at the top level`);
  }
  return value as Record<string, unknown>;
}

interface LoadedConfig {
  config: CompactConfig;
  steps: PipelineStep[];
}

/**
 * The compaction job's configuration: the config file (if any) with the flags applied over it, validated, and its
 * steps built (per-strategy options validated too). Every error names the source and the exact path, e.g.
 * `tcompact.json: options.mask-observations.keepResults: Too small: expected number to be >=0`.
 */
export async function loadCompactConfig(file: string | undefined, overrides: ConfigOverrides, { model = false } = {}): Promise<LoadedConfig> {
  const value: Record<string, unknown> = file === undefined ? {} : await readConfigFile(file);
  const { options, ...top } = overrides;
  for (const [key, v] of Object.entries(top)) if (v !== undefined) value[key] = v;
  if (options) {
    const merged = { ...(value.options as Record<string, Record<string, unknown>> | undefined) };
    for (const [name, entries] of Object.entries(options)) merged[name] = { ...merged[name], ...entries };
    value.options = merged;
  }
  const source = file ?? 'command line';
  const parsed = parseCompactConfig(value, source);
  const config = model ? withModelSummarizer(parsed) : parsed;
  try {
    return { config, steps: buildSteps(config) };
  } catch (err) {
    if (TcompactError.isInstance(err) && err.code === 'E_CONFIG') throw new TcompactError('E_CONFIG', `${source}: ${err.message}`);
    throw err;
  }
}
