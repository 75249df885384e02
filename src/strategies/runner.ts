import type { Transcript } from '../model/transcript.js';
import { type Breakdown, countTranscript } from '../tokens/breakdown.js';
import type { StepReport, Strategy, StrategyContext } from './types.js';

/** One configured step of a pipeline. */
export interface PipelineStep {
  strategy: Strategy;
  /** Already parsed by the strategy's schema. */
  config: unknown;
  /** Runs the step only when this holds for the transcript's current token total; otherwise it is recorded as skipped. */
  when?: (tokens: number, ctx: StrategyContext) => boolean;
}

export interface RunResult {
  transcript: Transcript;
  steps: StepReport[];
  tokensBefore: number;
  tokensAfter: number;
  before: Breakdown;
  after: Breakdown;
}

/**
 * Folds a transcript through the steps. Tokens are counted after every step with the same counter as `stats`, so
 * per-step savings add up exactly to before - after.
 */
export function runSteps(input: Transcript, steps: readonly PipelineStep[], ctx: StrategyContext): RunResult {
  const first = countTranscript(input, ctx.tokenizer);
  let transcript = input;
  let tokens = first.total;
  let last = first.byCategory;
  const reports: StepReport[] = [];
  for (const step of steps) {
    const started = performance.now();
    if (step.when && !step.when(tokens, ctx)) {
      reports.push(stepReport(step.strategy.name, tokens, tokens, 0, 0, performance.now() - started, true));
      continue;
    }
    const result = step.strategy.apply(transcript, step.config as never, ctx);
    // Most steps change nothing on most transcripts and return their input: no need to add it all up again.
    const counted = result.transcript === transcript ? { total: tokens, byCategory: last } : countTranscript(result.transcript, ctx.tokenizer);
    const report = stepReport(step.strategy.name, tokens, counted.total, result.messagesChanged, result.messagesRemoved, performance.now() - started, false);
    if (result.details) report.details = result.details;
    if (result.notes && result.notes.length > 0) report.notes = result.notes;
    reports.push(report);
    transcript = result.transcript;
    tokens = counted.total;
    last = counted.byCategory;
  }
  return { transcript, steps: reports, tokensBefore: first.total, tokensAfter: tokens, before: first.byCategory, after: last };
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
