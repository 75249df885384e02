import { TcompactError } from '../../errors.js';
import { type LlmOptions, parseLlmOptions } from '../../llm/config.js';
import { type PipelineStep, needsModel } from '../../strategies/runner.js';
import { canonicalHash } from '../../io/fingerprint.js';
import { firstAsyncStep } from './async-stage.js';
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
  llm?: { options: LlmOptions };
}

/** A run's settings with their defaults, validated (E_CONFIG), and the hash a resume must match. */
export function resolveRunSettings(options: RunOptions, steps: readonly PipelineStep[]): RunSettings {
  const { config } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULTS.maxLineBytes;
  const shardBytes = options.shardBytes ?? DEFAULTS.shardBytes;
  const maxItemsPerShard = options.maxItemsPerShard ?? DEFAULTS.maxItemsPerShard;
  const llmOptions = options.llm === undefined ? undefined : parseLlmOptions(options.llm);
  const asyncStep = firstAsyncStep(steps);
  if (asyncStep && !llmOptions) throw needsModel(asyncStep.strategy);
  if (llmOptions && !asyncStep) {
    throw new TcompactError(
      'E_CONFIG',
      `a model (${llmOptions.model}) is used by an LLM step (summarize, classify-tangents, auto's summarizer); the strategies ${config.strategies.join(', ')} have none`,
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
  const resolved: RunSettings = { maxLineBytes, shardBytes, maxItemsPerShard, settings, settingsHash, job };
  if (llmOptions) resolved.llm = { options: llmOptions };
  return resolved;
}

/**
 * LLM options that can change the output (not the key, the concurrency, the timeout, the prices, the cache, or the
 * Batch API: a batch run gives the bytes of an online one, and may be resumed online or the other way round).
 */
function llmOutputSettings(o: LlmOptions): Record<string, unknown> {
  const {
    apiKey: _key,
    llmConcurrency: _c,
    timeoutMs: _t,
    priceIn: _pi,
    priceOut: _po,
    cacheDir: _cd,
    priceBatchIn: _bi,
    priceBatchOut: _bo,
    batch: _b,
    ...rest
  } = o;
  return rest;
}
