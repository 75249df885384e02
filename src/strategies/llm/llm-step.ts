import type { StrategyResult } from '../types.js';
import type { LlmStepReport } from './llm-step-report.js';
import type { LlmSession } from '../../llm/session.js';

/** What an LLM step uses of the run's LLM session (see llm/session.ts). */
export type LlmStepDeps = Pick<LlmSession, 'answerer' | 'inputBudget' | 'params' | 'resolveRef'>;

/** A step's result: the usual StrategyResult, plus the LLM report. */
export interface LlmStepResult extends StrategyResult {
  llm: LlmStepReport;
}

/** Numeric details of an LLM step, summed over an archive by the report like any other strategy's details. */
export function llmDetails(report: LlmStepReport): Record<string, number> {
  const u = report.usage;
  return {
    llmRequests: u.requests,
    llmAnswers: u.answers,
    llmCacheHits: u.cacheHits,
    llmPromptTokens: u.promptTokens,
    llmCompletionTokens: u.completionTokens,
    llmRejectedAnswers: u.rejections.length,
    llmFallbacks: report.outcome === 'fallback' ? 1 : 0,
  };
}

/** Tells the session about a step that did not use the model's answer, so the run's report lists it. */
export function noteFallback(transcriptId: string, result: LlmStepResult, session: Pick<LlmSession, 'noteFallback'>): LlmStepResult {
  const { outcome, strategy, fallback } = result.llm;
  if (outcome === 'fallback')
    session.noteFallback({ id: transcriptId, strategy, applied: [...(fallback?.applied ?? [])], reason: fallback?.reason ?? 'unknown' });
  return result;
}
