// `tcompact/llm`: the network layer the LLM steps and the judge share (re-exports only). The steps themselves,
// `summarize` and `classify-tangents`, are strategies (`STRATEGIES` in the root API).
export { LlmOptionsSchema, parseLlmOptions, type LlmOptions, type LlmOptionsInput } from './config.js';
export { createLlmSession, type LlmSession, type LlmSessionDeps, type LlmRunUsage, type LlmFallbackEntry } from './session.js';
export { connectLlm, type LlmConnection, type LlmDeps } from './connection.js';
export { createOpenAIChatClient, type ChatClient, type ChatRequest, type ChatOutcome, type ChatUsage } from './client.js';
export { LlmQueue, type LlmJob, type QueueEvent } from './queue.js';
export { RateLimiter } from './limiter.js';
export { AnswerCache } from './cache.js';
export { LLM_FAILURE_CODES, type LlmFailure, type LlmFailureCode } from './failure.js';
export { systemClock, type Clock } from './clock.js';
export { modelInfo } from './model-info.js';
