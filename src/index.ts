// The public API (re-exports only). Subpaths: `tcompact/formats` (readers), `tcompact/llm` (the network layer and the
// LLM steps), `tcompact/retention` (probes, scores, the eval job, the judge), `tcompact/replay` (the agent-loop
// replay and its policies), `tcompact/tune` (settings derived from an archive).
export { TcompactError, ERROR_CODES, type ErrorCode, type ErrorInfo, type ErrorRecord, type Outcome } from './errors.js';
export type { Message } from './model/message.js';
export type { Transcript } from './model/transcript.js';
export { parseTranscript, type ParsedTranscript } from './model/parse.js';
export { findViolations, type Violation } from './model/validity.js';
export { getTokenizer, type Tokenizer, type TokenizerName } from './tokens/tokenizer.js';
export { countTranscript, type Breakdown } from './tokens/breakdown.js';
export { RefSink } from './refs/ref-store.js';
export { restoreTranscript, type RefLookup } from './refs/restore.js';
export { readInputs } from './formats/read-inputs.js';
export type { InputItem } from './formats/types.js';
export { createCompactor, type Compactor } from './pipeline/job/create-compactor.js';
export { CompactConfigSchema, type CompactConfig, type CompactConfigInput } from './strategies/compact-config.js';
export { STRATEGIES } from './strategies/registry.js';
export { PRESETS } from './strategies/presets.js';
export type { AsyncStrategy, Strategy, StrategyContext, StrategyResult, StepReport } from './strategies/types.js';
export { ContextManager } from './context/context-manager.js';
export type { ContextManagerOptionsInput } from './context/options.js';
export { runPipeline, type RunOutcome } from './pipeline/run-pipeline.js';
export type { RunOptions } from './pipeline/run-options.js';
export type { RunReport } from './pipeline/sink/run-report.js';
