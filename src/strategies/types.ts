import type { z } from 'zod';
import type { LlmSession } from '../llm/session.js';
import type { Transcript } from '../model/transcript.js';
import type { RefSink } from '../refs/ref-store.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { LlmStepReport } from './llm/llm-step-report.js';

/** What a strategy may use besides the transcript and its config. Nothing here makes a strategy impure. */
export interface StrategyContext {
  tokenizer: Tokenizer;
  /** Where replaced or removed content goes so `restore` can rebuild it; null with `--no-refs`. */
  refs: RefSink | null;
  /** The context window the transcript is measured against (tokens). */
  window: number;
}

/** What a strategy returns besides the new transcript. Counts of messages, not tokens: the runner counts tokens. */
export interface StrategyResult {
  transcript: Transcript;
  /** Messages kept but with changed content. */
  messagesChanged: number;
  /** Messages dropped (a message inserted in their place, such as a checkpoint, does not offset this). */
  messagesRemoved: number;
  /** Strategy-specific counters (e.g. `orphanResultsDropped`), summed over an archive. */
  details?: Record<string, number>;
  /** Free-form findings for the report (e.g. tangent turns); never needed to reproduce the output. */
  notes?: string[];
  /** An LLM step's requests, outcome and fallback. */
  llm?: LlmStepReport;
}

/** What an async step is handed besides the StrategyContext: the run's model. */
export interface AsyncStrategyContext extends StrategyContext {
  llm: LlmSession;
}

/**
 * A compaction strategy: a pure, synchronous, deterministic function of the transcript and its config. It must return
 * unchanged messages as the same objects (token counts are memoized per object, and restore relies on identity), and it
 * must keep the transcript valid (see model/validity.ts).
 */
export interface Strategy<Schema extends z.ZodType = z.ZodType> {
  /** The CLI name. */
  readonly name: string;
  readonly summary: string;
  /** A strict zod object whose fields all have documented defaults, so `{}` parses. */
  readonly config: Schema;
  readonly async?: false;
  /**
   * Loads what `apply` needs that costs a thread more to load than the rest of the strategies (a rule set, with
   * `await import()`). Awaited once per thread before the strategy runs (`prepareStrategies`, by `Job.prepare` and by a
   * Simulation before its first replay), so `apply` stays synchronous and pure and a thread whose steps do not name it
   * never loads it.
   */
  prepare?(): Promise<void>;
  apply(transcript: Transcript, config: z.output<Schema>, ctx: StrategyContext): StrategyResult;
}

/**
 * A step that asks a model (summarize, classify-tangents): deterministic given the model's answers, never run in a
 * worker. The pipeline runs the steps before the first async one in the workers and the rest on the main thread. It
 * must never throw for a model failure: it falls back and says so in `llm`.
 */
export interface AsyncStrategy<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly summary: string;
  readonly config: Schema;
  readonly async: true;
  prepare?(): Promise<void>;
  apply(transcript: Transcript, config: z.output<Schema>, ctx: AsyncStrategyContext): Promise<StrategyResult>;
}

export type AnyStrategy = Strategy | AsyncStrategy;

/** One step of a transcript's report. tokensSaved = tokensBefore - tokensAfter, exactly. */
export interface StepReport {
  strategy: string;
  messagesChanged: number;
  messagesRemoved: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  /** Wall time of the step; kept out of files compared for determinism. */
  ms: number;
  /** The step ran but its condition was not met (e.g. `checkpoint` below the threshold). */
  skipped?: boolean;
  /** LLM steps: requests, outcome, fallback (timings in `llm.usage.waitedMs`). */
  llm?: LlmStepReport;
  details?: Record<string, number>;
  notes?: string[];
}
