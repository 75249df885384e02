import { TcompactError } from '../errors.js';
import type { Transcript } from '../model/transcript.js';
import { type Breakdown, countTranscript } from '../tokens/breakdown.js';
import { recountTranscript } from '../tokens/recount.js';
import type { AnyStrategy, AsyncStrategyContext, StepReport, StrategyContext, StrategyResult } from './types.js';

/** One configured step of a pipeline. */
export interface PipelineStep {
  strategy: AnyStrategy;
  /** Already parsed by the strategy's schema. */
  config: unknown;
  /**
   * Runs the step only when this holds for the transcript as it is now (and its token total); otherwise it is recorded
   * as skipped. A function of the transcript alone, so a run resumed on the main thread decides as the worker did.
   */
  when?: (tokens: number, ctx: StrategyContext, transcript: Transcript) => boolean;
}

export interface RunResult {
  transcript: Transcript;
  steps: StepReport[];
  tokensBefore: number;
  tokensAfter: number;
  before: Breakdown;
  after: Breakdown;
}

/** A fold stopped before an async step: the steps from `next` on still have to run, on the main thread. */
interface PartialRunResult extends RunResult {
  next?: number;
}

/**
 * The state of a transcript going through steps. Tokens are counted after every step with the same counter as
 * `stats`, so per-step savings add up exactly to before - after.
 */
class Fold {
  transcript: Transcript;
  readonly reports: StepReport[] = [];
  private readonly first: ReturnType<typeof countTranscript>;
  private tokens: number;
  private last: Breakdown;

  constructor(
    input: Transcript,
    private readonly ctx: StrategyContext,
  ) {
    this.first = countTranscript(input, ctx.tokenizer);
    this.transcript = input;
    this.tokens = this.first.total;
    this.last = this.first.byCategory;
  }

  /** Whether the step's condition holds; when it does not, the step is recorded as skipped. */
  due(step: PipelineStep): boolean {
    if (!step.when || step.when(this.tokens, this.ctx, this.transcript)) return true;
    this.reports.push(stepReport(step.strategy.name, this.tokens, this.tokens, 0, 0, 0, true));
    return false;
  }

  record(step: PipelineStep, result: StrategyResult, started: number): void {
    // Most steps change nothing on most transcripts and return their input; the others change a few messages, and
    // only those are counted.
    const now = { total: this.tokens, byCategory: this.last };
    const counted = result.transcript === this.transcript ? now : recountTranscript(this.transcript, now, result.transcript, this.ctx.tokenizer);
    const report = stepReport(
      step.strategy.name,
      this.tokens,
      counted.total,
      result.messagesChanged,
      result.messagesRemoved,
      performance.now() - started,
      false,
    );
    if (result.llm) report.llm = result.llm;
    if (result.details) report.details = result.details;
    if (result.notes && result.notes.length > 0) report.notes = result.notes;
    this.reports.push(report);
    this.transcript = result.transcript;
    this.tokens = counted.total;
    this.last = counted.byCategory;
  }

  result(): RunResult {
    return {
      transcript: this.transcript,
      steps: this.reports,
      tokensBefore: this.first.total,
      tokensAfter: this.tokens,
      before: this.first.byCategory,
      after: this.last,
    };
  }
}

/**
 * Runs the synchronous steps in order and stops at the first async step whose condition holds, returning its index as
 * `next` (an async step whose condition does not hold is recorded as skipped, as any other).
 */
export function runUntilAsync(input: Transcript, steps: readonly PipelineStep[], ctx: StrategyContext): PartialRunResult {
  const fold = new Fold(input, ctx);
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const started = performance.now();
    if (!fold.due(step)) continue;
    if (step.strategy.async) return { ...fold.result(), next: i };
    fold.record(step, step.strategy.apply(fold.transcript, step.config as never, ctx), started);
  }
  return fold.result();
}

/** Folds a transcript through synchronous steps; an async step that has to run is an E_CONFIG error. */
export function runSteps(input: Transcript, steps: readonly PipelineStep[], ctx: StrategyContext): RunResult {
  const run = runUntilAsync(input, steps, ctx);
  if (run.next !== undefined) throw needsModel(steps[run.next].strategy);
  return run;
}

/** Folds a transcript through any steps, awaiting the async ones (main thread only). */
export async function runStepsAsync(input: Transcript, steps: readonly PipelineStep[], ctx: AsyncStrategyContext): Promise<RunResult> {
  const fold = new Fold(input, ctx);
  for (const step of steps) {
    const started = performance.now();
    if (!fold.due(step)) continue;
    const result = step.strategy.async
      ? await step.strategy.apply(fold.transcript, step.config as never, ctx)
      : step.strategy.apply(fold.transcript, step.config as never, ctx);
    fold.record(step, result, started);
  }
  return fold.result();
}

/** Awaits the preparation of every strategy given (each once, however often it is given). */
export async function prepareStrategies(strategies: Iterable<AnyStrategy>): Promise<void> {
  await Promise.all([...new Set(strategies)].map((s) => s.prepare?.()));
}

/** The error for an async step where no model is available. */
export function needsModel(strategy: AnyStrategy): TcompactError {
  return new TcompactError('E_CONFIG', `strategy "${strategy.name}" needs a model: pass --model NAME`);
}

function stepReport(strategy: string, before: number, after: number, changed: number, removed: number, ms: number, skipped: boolean): StepReport {
  const report: StepReport = {
    strategy,
    messagesChanged: changed,
    messagesRemoved: removed,
    tokensBefore: before,
    tokensAfter: after,
    tokensSaved: before - after,
    ms,
  };
  if (skipped) report.skipped = true;
  return report;
}

/** For commands that run steps synchronously (compact, eval, the context manager): E_CONFIG on an async step. */
export function requireSyncSteps(steps: readonly PipelineStep[], command: string): void {
  const step = steps.find((s) => s.strategy.async);
  if (step) throw new TcompactError('E_CONFIG', `${command}: strategy "${step.strategy.name}" needs a model: pass --model NAME`);
}
