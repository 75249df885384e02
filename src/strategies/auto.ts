import * as z from 'zod';
import { parseConfig } from '../model/parse.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import type { CompactConfig } from './compact-config.js';
import type { PipelineStep } from './runner.js';
import { hasTruncationMarker } from './truncate.js';

/** `options.auto` in the config file. */
const AutoOptionsSchema = z
  .strictObject({
    /** The summarizer runs only while the transcript is above this share of the window. @default 0.5 */
    summarizeThreshold: z.number().gt(0).max(1).default(0.5),
    /** `truncate` runs only while the transcript is still at or above this share of the window. @default 0.98 */
    hardLimit: z.number().gt(0).max(1).default(DEFAULT_THRESHOLDS.hardLimit),
    /**
     * The strategy that summarizes the middle: `checkpoint` (deterministic, no model) or `summarize` (the model;
     * `tcompact run --model` picks it unless the config names one). @default "checkpoint"
     */
    summarizer: z.string().min(1).default('checkpoint'),
    /**
     * Run `classify-tangents` with `remove` on every transcript before the summarizer (needs a model;
     * `--remove-tangents`). @default false
     */
    removeTangents: z.boolean().default(false),
  })
  .refine((o) => o.summarizeThreshold <= o.hardLimit, { message: 'summarizeThreshold must not exceed hardLimit', path: ['summarizeThreshold'] });
type AutoOptions = z.output<typeof AutoOptionsSchema>;

/** The cheap, always-on steps of `auto`, in order; each saves what it can and changes nothing else. */
export const AUTO_MECHANICAL = ['sanitize', 'strip-reasoning', 'dedup-tools', 'mask-observations', 'strip-attachments', 'prune-tools'] as const;

function autoOptions(config: CompactConfig): AutoOptions {
  return parseConfig(AutoOptionsSchema, config.options.auto ?? {}, { path: ['options', 'auto'] });
}

/**
 * `auto`, the default pipeline: the mechanical steps, then (with `removeTangents`) classify-tangents, then the summarizer only while the transcript is above
 * `summarizeThreshold` of the window, then `truncate` only while it is still at or above `hardLimit`, then the
 * summarizer once more where a truncation marker is present, then `prune-tools` once more and `sanitize`.
 * Steps whose condition does not hold are recorded as skipped, so every transcript's report lists every step.
 * Strategies are looked up by name when the preset is expanded, so hints and options apply to them as anywhere else.
 */
export function autoSteps(config: CompactConfig, stepFor: (name: string) => PipelineStep): PipelineStep[] {
  const options = autoOptions(config);
  const summarizer = stepFor(options.summarizer);
  const summarize: PipelineStep = { ...summarizer, when: (tokens, ctx) => tokens > options.summarizeThreshold * ctx.window };
  const truncate: PipelineStep = { ...stepFor('truncate'), when: (tokens, ctx) => tokens >= options.hardLimit * ctx.window };
  // A truncation can leave a middle the summarizer would now replace (fewer messages, so a checkpoint smaller than
  // them) where it declined the longer one: summarizing again here is what compacting the output again would do, so
  // doing it now keeps auto idempotent. On a transcript the summarizer already handled this step changes nothing.
  const summarizeAfterTruncation: PipelineStep = {
    ...summarizer,
    when: (tokens, ctx, transcript) => tokens > options.summarizeThreshold * ctx.window && hasTruncationMarker(transcript.messages),
  };
  const tangents: PipelineStep[] = [];
  if (options.removeTangents) {
    const step = stepFor('classify-tangents');
    tangents.push({ ...step, config: { ...(step.config as object), remove: true } });
  }
  return [
    ...AUTO_MECHANICAL.map((name) => stepFor(name)),
    ...tangents,
    summarize,
    truncate,
    summarizeAfterTruncation,
    // prune-tools again at the end: the summarizer and truncate remove calls, and the definitions of tools no longer
    // called must go now, or compacting the output again would remove them then (auto must be idempotent).
    stepFor('prune-tools'),
    stepFor('sanitize'),
  ];
}

/**
 * The config a run with a model uses: `auto`'s summarizer becomes `summarize` unless the config names one, so
 * `--model` alone turns the LLM summary on.
 */
export function withModelSummarizer(config: CompactConfig): CompactConfig {
  if (!config.strategies.includes('auto') || config.options.auto?.summarizer !== undefined) return config;
  return { ...config, options: { ...config.options, auto: { ...config.options.auto, summarizer: 'summarize' } } };
}
