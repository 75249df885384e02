import { TcompactError } from '../../errors.js';
import type { FormatName } from '../../formats/types.js';
import { type LlmOptions, type LlmOptionsInput, parseLlmOptions } from '../../llm/config.js';
import { needsModel } from '../../strategies/runner.js';
import { canonicalHash } from '../../io/fingerprint.js';
import type { JobSettings } from '../shard/types.js';
import { DEFAULTS } from './capacity.js';
import type { Job } from './job.js';

/** What decides a run's output besides the job: the inputs and how they are read and cut into shards. */
interface SettingsInput {
  inputs: string[];
  /** The selected sessions of each SQLite store among the inputs. */
  sessions?: Readonly<Record<string, readonly string[]>>;
  from?: FormatName;
  maxLineBytes?: number;
  shardBytes?: number;
  maxItemsPerShard?: number;
  llm?: LlmOptionsInput;
}

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
export function resolveRunSettings(input: SettingsInput, job: Job): RunSettings {
  const { config } = job;
  const maxLineBytes = input.maxLineBytes ?? DEFAULTS.maxLineBytes;
  const shardBytes = input.shardBytes ?? DEFAULTS.shardBytes;
  const maxItemsPerShard = input.maxItemsPerShard ?? DEFAULTS.maxItemsPerShard;
  const llmOptions = input.llm === undefined ? undefined : parseLlmOptions(input.llm);
  const firstLlmStep = job.llmSteps[0];
  if (firstLlmStep !== undefined && !llmOptions) throw needsModel(job.steps[firstLlmStep].strategy);
  if (llmOptions && firstLlmStep === undefined) {
    throw new TcompactError(
      'E_CONFIG',
      `a model (${llmOptions.model}) is used by an LLM step (summarize, classify-tangents, auto's summarizer); the strategies ${config.strategies.join(', ')} have none`,
    );
  }
  const settings = {
    inputs: input.inputs,
    config,
    maxLineBytes,
    from: input.from ?? null,
    shardBytes,
    maxItemsPerShard,
    llm: llmOptions ? llmOutputSettings(llmOptions) : null,
    // Only when discovery selected sessions inside a store, so the settings of every other run hash as before.
    ...(input.sessions !== undefined && Object.keys(input.sessions).length > 0 ? { sessions: input.sessions } : {}),
  };
  const settingsHash = canonicalHash(settings);
  const jobSettings: JobSettings = { config, configHash: settingsHash, maxLineBytes };
  const resolved: RunSettings = { maxLineBytes, shardBytes, maxItemsPerShard, settings, settingsHash, job: jobSettings };
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
