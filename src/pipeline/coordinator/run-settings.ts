import { TcompactError } from '../../errors.js';
import { type LlmOptions, parseLlmOptions } from '../../llm/config.js';
import type { PipelineStep } from '../../strategies/runner.js';
import { canonicalHash } from '../../io/fingerprint.js';
import { llmSplitIndex } from './llm-stage.js';
import { DEFAULTS, type RunOptions } from './run-options.js';
import type { JobSettings } from '../shard/types.js';

export interface RunSettings {
  maxLineBytes: number;
  shardBytes: number;
  maxItemsPerShard: number;
  /** Everything that decides the output bytes, as journaled; `workers` is deliberately not in it. */
  settings: Record<string, unknown>;
  settingsHash: string;
  /** What every worker task carries. */
  job: JobSettings;
  llm?: { options: LlmOptions; splitAt: number | undefined };
}

/** A run's settings with their defaults, validated (E_CONFIG), and the hash a resume must match. */
export function resolveRunSettings(options: RunOptions, steps: readonly PipelineStep[]): RunSettings {
  const { config } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULTS.maxLineBytes;
  const shardBytes = options.shardBytes ?? DEFAULTS.shardBytes;
  const maxItemsPerShard = options.maxItemsPerShard ?? DEFAULTS.maxItemsPerShard;
  const llmOptions = options.llm === undefined ? undefined : parseLlmOptions(options.llm);
  const splitAt = llmOptions ? llmSplitIndex(config, steps) : undefined;
  if (llmOptions && splitAt === undefined && !llmOptions.removeTangents) {
    throw new TcompactError(
      'E_CONFIG',
      `a model (${llmOptions.model}) is used by the summarizer step of "auto" or by --remove-tangents; the strategies ${config.strategies.join(', ')} have neither`,
    );
  }
  const settings = {
    inputs: options.inputs,
    config,
    maxLineBytes,
    from: options.from ?? null,
    shardBytes,
    maxItemsPerShard,
    llm: llmOptions ? llmOutputSettings(llmOptions) : null,
  };
  const settingsHash = canonicalHash(settings);
  const job: JobSettings = { config, configHash: settingsHash, maxLineBytes };
  if (splitAt !== undefined) job.llmSplitAt = splitAt;
  const resolved: RunSettings = { maxLineBytes, shardBytes, maxItemsPerShard, settings, settingsHash, job };
  if (llmOptions) resolved.llm = { options: llmOptions, splitAt };
  return resolved;
}

/** LLM options that can change the output (not the key, the concurrency, the timeout, the prices or the cache). */
function llmOutputSettings(o: LlmOptions): Record<string, unknown> {
  const { apiKey: _key, llmConcurrency: _c, timeoutMs: _t, priceIn: _pi, priceOut: _po, cacheDir: _cd, ...rest } = o;
  return rest;
}
