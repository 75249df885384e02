import type { LlmSession } from '../../llm/session.js';
import type { Transcript } from '../../model/transcript.js';
import { finishCompaction } from '../../refs/recipe.js';
import type { RefSink } from '../../refs/ref-store.js';
import { withModelSummarizer } from '../../strategies/auto.js';
import { buildSteps } from '../../strategies/build-steps.js';
import type { CompactConfig } from '../../strategies/compact-config.js';
import { type CompactResult, compactTranscript } from '../../strategies/compact-transcript.js';
import { type PipelineStep, type RunResult, needsModel, prepareStrategies, runSteps, runStepsAsync, runUntilAsync } from '../../strategies/runner.js';
import { type Tokenizer, getTokenizer } from '../../tokens/tokenizer.js';

/**
 * Where a transcript stands after the part of the job that needs no model: done, or handed on at an LLM step whose
 * condition holds. `resumeAt` names the step by its place in `Job.steps`, which every side builds the same way from the
 * same config.
 */
type JobStart = { kind: 'done'; result: CompactResult } | { kind: 'handed-on'; partial: RunResult; resumeAt: number };

/**
 * The config and steps of a compaction, built once and shared by every transcript: by the workers (the part without a
 * model), by the main thread (the LLM part), by `compact`, `eval`, `ContextManager` and the library's compactor. It is
 * the one place where steps are folded and the restore recipe is stored, so every entry point compacts alike.
 */
export interface Job {
  readonly config: CompactConfig;
  readonly steps: readonly PipelineStep[];
  readonly tokenizer: Tokenizer;
  /** Indexes of the steps that need a model; empty for a job that runs whole in the workers. */
  readonly llmSteps: readonly number[];
  /**
   * Loads what the steps load only when named (redact-secrets' rules); awaited before the first transcript in a
   * thread that may not have loaded them (a worker). Settles once: later calls return the same promise.
   */
  prepare(): Promise<void>;
  /** Every step up to the first LLM step that is due; the result is final when no such step comes. */
  start(input: Transcript, refs: RefSink | null): JobStart;
  /**
   * The steps from `resumeAt` on, awaiting the model, over a transcript a worker handed on (its partial compaction,
   * which carries its own restore recipe): the new recipe restores that transcript.
   */
  resume(handedOn: Transcript, resumeAt: number, refs: RefSink | null, llm: LlmSession): Promise<CompactResult>;
  /** Stores the restore recipe of `run`, a fold of `input` (a worker's output when it hands a transcript on). */
  finish(input: Transcript, run: RunResult, refs: RefSink | null): CompactResult;
  /**
   * The steps alone, no restore recipe (scoring and replay, where the transcript is looked at, not stored): awaiting
   * the model's steps when `llm` is given, else E_CONFIG when one is due.
   */
  fold(input: Transcript, refs: RefSink | null, llm?: LlmSession): RunResult | Promise<RunResult>;
  /** The whole job without a model: E_CONFIG when an LLM step is due. */
  compact(input: Transcript, refs: RefSink | null): CompactResult;
  /** The whole job, awaiting the model's steps (main thread only). */
  compactAsync(input: Transcript, refs: RefSink | null, llm: LlmSession | undefined): Promise<CompactResult>;
}

interface JobOptions {
  /** A model serves the LLM steps: auto's summarizer becomes summarize, as in `run --model`. @default false */
  model?: boolean;
  /** Steps built already (validated by the caller); otherwise they are built from the config. */
  steps?: readonly PipelineStep[];
  /**
   * Counts instead of the thread's shared tokenizer of the config's encoding (a replay's, scaled to its provider's
   * tokens); it must count that encoding. @default the shared one
   */
  tokenizer?: Tokenizer;
}

export function createJob(config: CompactConfig, options: JobOptions = {}): Job {
  const effective = options.model ? withModelSummarizer(config) : config;
  const steps = options.steps ?? buildSteps(effective);
  // Built on first use: a run's main thread folds nothing without an LLM step, and an exact tokenizer costs its rank
  // table (a large module to compile, then a table to build) in every thread that loads it.
  let loaded: Tokenizer | undefined = options.tokenizer;
  const tokenizer = (): Tokenizer => (loaded ??= getTokenizer(effective.tokenizer, effective.tokenizerEngine));
  const { window } = effective;
  const llmSteps = steps.flatMap((s, i) => (s.strategy.async ? [i] : []));
  let prepared: Promise<void> | undefined;
  const refsOf = (refs: RefSink | null) => (effective.refs ? refs : null);
  const finish = (input: Transcript, run: RunResult, refs: RefSink | null): CompactResult => ({
    ...run,
    ...finishCompaction(input, run.transcript, refsOf(refs)),
  });
  const start = (input: Transcript, refs: RefSink | null): JobStart => {
    refsOf(refs)?.enterLayer(input);
    const run = runUntilAsync(input, steps, { tokenizer: tokenizer(), refs: refsOf(refs), window });
    if (run.next === undefined) return { kind: 'done', result: finish(input, run, refsOf(refs)) };
    const { next, ...partial } = run;
    return { kind: 'handed-on', partial, resumeAt: next };
  };
  const continueFrom = async (base: Transcript, partial: Transcript, resumeAt: number, refs: RefSink | null, llm: LlmSession): Promise<CompactResult> => {
    const ctx = { tokenizer: tokenizer(), refs: refsOf(refs), window, llm };
    // A transcript handed on is a layer of its own; a fold continued from `start` stays in the layer it entered there.
    if (base === partial) ctx.refs?.enterLayer(base);
    return finish(base, await runStepsAsync(partial, steps.slice(resumeAt), ctx), ctx.refs);
  };
  return {
    config: effective,
    steps,
    get tokenizer() {
      return tokenizer();
    },
    llmSteps,
    prepare: () => (prepared ??= prepareStrategies(steps.map((s) => s.strategy))),
    start,
    finish,
    resume: (handedOn, resumeAt, refs, llm) => continueFrom(handedOn, handedOn, resumeAt, refs, llm),
    fold(input, refs, llm) {
      const ctx = { tokenizer: tokenizer(), refs: refsOf(refs), window };
      return llm && llmSteps.length > 0 ? runStepsAsync(input, steps, { ...ctx, llm }) : runSteps(input, steps, ctx);
    },
    compact: (input, refs) => compactTranscript(input, steps, { tokenizer: tokenizer(), refs: refsOf(refs), window }),
    async compactAsync(input, refs, llm) {
      const started = start(input, refs);
      if (started.kind === 'done') return started.result;
      if (!llm) throw needsModel(steps[started.resumeAt].strategy);
      const rest = await continueFrom(input, started.partial.transcript, started.resumeAt, refs, llm);
      return { ...rest, steps: [...started.partial.steps, ...rest.steps], tokensBefore: started.partial.tokensBefore, before: started.partial.before };
    },
  };
}
