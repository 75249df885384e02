import type { Transcript } from '../../model/transcript.js';
import type { StepReport, StrategyContext } from '../types.js';
import { type TranscriptTokens, countTranscript } from '../../tokens/breakdown.js';
import type { LlmStepReport, LlmStepResult } from './llm-step.js';

/** A StepReport like the runner's, with the LLM report attached (timings in `ms` and `llm.usage.waitedMs`). */
export type LlmStepReportEntry = StepReport & { llm: LlmStepReport };

export interface LlmStepRun {
  transcript: Transcript;
  /** Append to the transcript's `steps`: tokensSaved = tokensBefore - tokensAfter, counted as the runner counts. */
  step: LlmStepReportEntry;
  /** The transcript's tokens after the step (total and by category), for the transcript's report. */
  tokens: TranscriptTokens;
}

/**
 * Runs one LLM step and reports it exactly as `runSteps` reports a synchronous strategy, so a pipeline can append it
 * to a transcript's steps after the worker's own (the per-step savings still add up to before - after).
 */
export async function runLlmStep(
  name: LlmStepReport['strategy'],
  step: (transcript: Transcript, ctx: StrategyContext) => Promise<LlmStepResult>,
  transcript: Transcript,
  ctx: StrategyContext,
): Promise<LlmStepRun> {
  const started = performance.now();
  const before = countTranscript(transcript, ctx.tokenizer).total;
  const result = await step(transcript, ctx);
  const tokens = countTranscript(result.transcript, ctx.tokenizer);
  const report: LlmStepReportEntry = {
    strategy: name,
    messagesChanged: result.messagesChanged,
    messagesRemoved: result.messagesRemoved,
    tokensBefore: before,
    tokensAfter: tokens.total,
    tokensSaved: before - tokens.total,
    ms: performance.now() - started,
    llm: result.llm,
  };
  if (result.details) report.details = result.details;
  if (result.notes && result.notes.length > 0) report.notes = result.notes;
  return { transcript: result.transcript, step: report, tokens };
}
