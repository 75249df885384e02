import type { AskRecord } from '../../llm/answerer.js';

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
