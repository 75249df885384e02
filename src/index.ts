// Public API: re-exports only.
export * from './errors.js';
export * from './model/content.js';
export * from './model/message.js';
export * from './model/transcript.js';
export * from './model/parse.js';
export * from './model/validity.js';
export * from './tokens/tokenizer.js';
export * from './tokens/breakdown.js';
export * from './tokens/window.js';
export * from './refs/ref-store.js';
export * from './strategies/types.js';
export * from './strategies/boundaries.js';
export * from './strategies/runner.js';
export * from './strategies/registry.js';
export * from './formats/types.js';
export * from './formats/read-inputs.js';
export * from './formats/detect.js';
export * from './formats/adapters.js';
export * from './formats/anthropic-writer.js';
export * from './formats/walk.js';
export * from './context/options.js';
export * from './context/context-manager.js';
export * from './context/strategy-compaction.js';
// LLM summarization (main thread only): options, the per-run entry point, and the pieces it is built from.
export * from './llm/config.js';
export * from './strategies/llm/summarizer.js';
export * from './strategies/llm/llm-step.js';
export * from './strategies/llm/run-llm-step.js';
export * from './llm/client.js';
export * from './llm/queue.js';
export * from './llm/limiter.js';
export * from './llm/clock.js';
export * from './llm/failure.js';
export * from './llm/rate-limit-headers.js';
export * from './llm/backoff.js';
export * from './llm/cache.js';
export * from './llm/usage.js';
export * from './llm/model-info.js';
export { PROMPT_VERSION, SUMMARY_SECTIONS, checkSummary } from './strategies/llm/prompts.js';
export { SUMMARY_PREFIX, compactionMessage } from './model/compaction-marker.js';
export { summarizeTranscript, deterministicFallback, SummarizeConfigSchema, type SummarizeConfig } from './strategies/llm/summarize.js';
export { classifyTangents, ClassifyTangentsConfigSchema, type ClassifyTangentsConfig } from './strategies/llm/classify-tangents.js';
// Mechanical strategies (also reachable by CLI name through STRATEGIES) and the archive report.
export { sanitize, SanitizeConfigSchema } from './strategies/sanitize.js';
export { stripReasoning, StripReasoningConfigSchema, REASONING_FIELDS } from './strategies/strip-reasoning.js';
export { maskObservations, MaskObservationsConfigSchema } from './strategies/mask-observations.js';
export { stripToolResults, StripToolResultsConfigSchema } from './strategies/strip-tool-results.js';
export { stripAttachments, StripAttachmentsConfigSchema } from './strategies/strip-attachments.js';
export { pruneTools, PruneToolsConfigSchema } from './strategies/prune-tools.js';
export {
  dedupTools,
  createDedupTools,
  rangeSubsumes,
  DedupToolsConfigSchema,
  type DedupCall,
  type DedupToolsOptions,
  type Subsumes,
} from './strategies/dedup-tools.js';
export { checkpoint, CheckpointConfigSchema } from './strategies/checkpoint.js';
export { truncate, TruncateConfigSchema } from './strategies/truncate.js';
export { AutoOptionsSchema, type AutoOptions } from './strategies/auto.js';
export * from './strategies/tool-hints.js';
// Reversibility: compact with a restore recipe, and restore.
export { compactTranscript, type CompactResult } from './strategies/compact-transcript.js';
export { restoreTranscript, type RefLookup } from './refs/restore.js';
export { RecipeSchema, tcompactMetadata, type Recipe, type TcompactMetadata } from './refs/recipe.js';
export * from './refs/ref-file.js';
export * from './report/archive-report.js';
export { renderMarkdownReport, renderStrategyTable } from './report/render-markdown.js';
// Evaluation and cost replay: probes, the retention rule, the evaluation and the agent-loop replay under policies.
export { PROBE_KINDS, extractProbes, type Probe, type ProbeKind } from './eval/probes.js';
export { isRetained, type MatchOptions } from './eval/matching.js';
export { modelView, viewOfMessages, type ModelView } from './eval/model-view.js';
export { REQUEST_OVERLAP_THRESHOLD, keyPhrases } from './eval/key-phrases.js';
export { scoreProbes, recall, type ProbeScore, type Tally } from './eval/score.js';
export { Evaluation, type EvalOptions, type EvalReport, type EvalRow } from './eval/eval-run.js';
export { referenceCompactions, type ReferenceCompaction } from './eval/reference-compaction.js';
export { Judge, JUDGE_DIMENSIONS, type JudgeOptionsInput, type JudgeReport } from './eval/judge.js';
export { replay, type PolicyInstance, type ReplayOptions, type ReplayStats } from './eval/replay.js';
export { POLICIES, DEFAULT_POLICIES, resolvePolicy, checkpointMiddle, type Policy, type PolicyEnv } from './eval/policies.js';
export { Simulation, type SimulateOptions, type SimulationReport } from './eval/simulate-run.js';
export { DEFAULT_PRICES, PricesSchema, type Prices } from './eval/pricing.js';
export { recordedUsage, type RecordedUsage } from './eval/recorded-usage.js';
// The batch pipeline (`tcompact run`): worker pool, ordered atomic output, journal and resume.
export { runPipeline, LLM_CACHE_DIR, type RunOutcome } from './pipeline/coordinator/run-pipeline.js';
export { DEFAULT_SHARD_BYTES, DEFAULT_WORKER_HEAP_MB, MAX_ATTEMPTS, type RunOptions, type RunProgress } from './pipeline/coordinator/run-options.js';
export type { RunReport } from './pipeline/coordinator/run-report.js';
export type { ShardDescriptor, RangeShard, ItemsShard, ShardOutput, ShardReport, TranscriptReport } from './pipeline/shard/types.js';
export type { ShardHook } from './pipeline/coordinator/shard-hook.js';
export { createProgress, formatProgress, type Progress, type ProgressSnapshot } from './report/progress.js';
export { main } from './cli/main.js';
