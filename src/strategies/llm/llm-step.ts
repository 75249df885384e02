import type { StrategyResult } from '../types.js';
import type { AskRecord } from '../../llm/answerer.js';
import type { LlmSession } from '../../llm/session.js';

/** What an LLM step uses of the run's LLM session (see llm/session.ts). */
export type LlmStepDeps = Pick<LlmSession, 'answerer' | 'inputBudget' | 'params' | 'resolveRef'>;

/** The deterministic strategies a failed LLM step falls back to, in this order. */
export type FallbackStrategy = 'checkpoint' | 'truncate';

/** The LLM part of a step's report. */
export interface LlmStepReport {
  strategy: 'summarize' | 'classify-tangents';
  /** `unchanged`: nothing to do (e.g. no middle span); `fallback`: the model's answer was not used. */
  outcome: 'summarized' | 'classified' | 'unchanged' | 'fallback';
  /**
   * Why the step did not use the model's answer, and what ran instead: `checkpoint`, then `truncate` when the
   * checkpoint still did not fit the window; empty when neither is registered or neither helped (transcript unchanged).
   */
  fallback?: { applied: FallbackStrategy[]; reason: string };
  /** The messages the step sent to the model or replaced: [from, to) in the input transcript. */
  span?: { from: number; to: number };
  /** Share of the span's tool results left out of the accepted prompt (0, 0.1, 0.2, 0.5, 1). */
  droppedToolResults?: number;
  /** Parts the span was split into (1 when it fit whole). */
  chunks?: number;
  /** classify-tangents: the turns the model called tangents (1-based turn numbers; [from, to) message indices). */
  tangents?: { turn: number; from: number; to: number; reason: string; removed: boolean }[];
  /** Our token count of every prompt sent, in order: after a context_length_exceeded they only decrease. */
  promptSizes: number[];
  /** Requests, answers, cache hits, tokens, failures and rejections. */
  usage: AskRecord;
  /** Estimated US dollars of this step's answers; null when the model's price is unknown. */
  costUsd: number | null;
}

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
