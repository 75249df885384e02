import type { Message } from '../model/message.js';

/** The prompt an agent is about to send, with its size in tokens as the caller counts it. */
export interface ContextInput {
  messages: readonly Message[];
  tokens: number;
}

/** What a compaction handler receives. */
export interface CompactionRequest extends ContextInput {
  window: number;
  /** `threshold`: `check()` in auto mode; `requested`: the caller called `compact()`. */
  reason: 'threshold' | 'requested';
}

export interface CompactionOutput {
  messages: Message[];
  /** Tokens of `messages`, counted the way the caller counts `tokens`. */
  tokens: number;
}

/** Compacts a prompt: any strategy or pipeline (see `strategyCompaction`), an LLM summary, or the caller's own code. */
export type CompactionHandler = (request: CompactionRequest) => CompactionOutput | Promise<CompactionOutput>;
