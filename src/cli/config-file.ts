import { readFile } from 'node:fs/promises';
import { TcompactError } from '../errors.js';
import { type CompactConfig, buildSteps, parseCompactConfig } from '../strategies/pipeline-config.js';
import type { PipelineStep } from '../strategies/runner.js';

/** Settings given as flags; each one set replaces the config file's value. */
export interface ConfigOverrides {
  strategies?: string[];
  keepLast?: number;
  window?: number;
  tokenizer?: string;
  refs?: boolean;
}

/** Reads a `--config FILE` as a JSON object; unreadable or malformed files are E_CONFIG errors naming the file. */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
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

export interface LoadedConfig {
  config: CompactConfig;
  steps: PipelineStep[];
}

/**
 * The compaction job's configuration: the config file (if any) with the flags applied over it, validated, and its
 * steps built (per-strategy options validated too). Every error names the source and the exact path, e.g.
 * `tcompact.json: options.mask-observations.keepRecent: Too small: expected number to be >=0`.
 */
export async function loadCompactConfig(file: string | undefined, overrides: ConfigOverrides): Promise<LoadedConfig> {
  const value: Record<string, unknown> = file === undefined ? {} : await readConfigFile(file);
  for (const [key, v] of Object.entries(overrides)) if (v !== undefined) value[key] = v;
  const source = file ?? 'command line';
  const config = parseCompactConfig(value, source);
  try {
    return { config, steps: buildSteps(config) };
  } catch (err) {
    if (TcompactError.isInstance(err) && err.code === 'E_CONFIG') throw new TcompactError('E_CONFIG', `${source}: ${err.message}`);
    throw err;
  }
}
