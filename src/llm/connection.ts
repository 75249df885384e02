import { TcompactError } from '../errors.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import { type ChatClient, createOpenAIChatClient, defaultMaxTokensParam } from './client.js';
import { type Clock, systemClock } from './clock.js';
import { DEFAULT_SUMMARIZER_WINDOW, type LlmOptions } from './config.js';
import { RateLimiter } from './limiter.js';
import { modelInfo } from './model-info.js';
import { LlmQueue, type QueueEvent } from './queue.js';

/** Everything a caller may inject; tests use a fake clock, a seeded random and a loopback server. */
export interface LlmDeps {
  /** @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** A client other than the OpenAI SDK one (tests, other transports). */
  client?: ChatClient;
  onEvent?: (event: QueueEvent) => void;
  /** Aborting (e.g. on SIGINT) stops new requests; unfinished jobs fail as `aborted`. */
  signal?: AbortSignal;
  /** Where OPENAI_BASE_URL and OPENAI_API_KEY are read. @default process.env */
  env?: Record<string, string | undefined>;
}

/** One model behind one queue and one limiter: what the LLM steps and the judge share. */
export interface LlmConnection {
  queue: LlmQueue;
  limiter: RateLimiter;
  /** Tokens one prompt may hold: the model's window minus max_tokens and a margin, and within the TPM limit. */
  inputBudget: number;
  /** The configured temperature, else 0, except for models that refuse any (o-series, gpt-5): then none is sent. */
  temperature: number | undefined;
}

/** Tokens kept free in the model's window besides max_tokens: our count and the server's may differ a little. */
function safetyMargin(window: number): number {
  return Math.max(256, Math.floor(window * 0.02));
}

/**
 * Connects to the model of validated options: E_CONFIG when max_tokens leaves less than `minPromptTokens` for a
 * prompt (the judge takes 0: a question whose context does not fit is counted, not an error).
 */
export function connectLlm(options: LlmOptions, deps: LlmDeps = {}, { source = 'llm', minPromptTokens = 1024 } = {}): LlmConnection {
  const env = deps.env ?? process.env;
  const clock = deps.clock ?? systemClock;
  const window = options.contextWindow ?? modelInfo(options.model).contextWindow ?? DEFAULT_SUMMARIZER_WINDOW;
  let inputBudget = window - options.maxTokens - safetyMargin(window);
  if (options.tpm !== undefined) inputBudget = Math.min(inputBudget, options.tpm - options.maxTokens);
  if (inputBudget < minPromptTokens) {
    throw new TcompactError(
      'E_CONFIG',
      `${source}: maxTokens ${options.maxTokens} leaves only ${inputBudget} tokens for the prompt (window ${window}${options.tpm ? `, tpm ${options.tpm}` : ''})`,
    );
  }
  const client =
    deps.client ??
    createOpenAIChatClient({
      model: options.model,
      baseURL: options.baseURL ?? (env.OPENAI_BASE_URL || undefined),
      apiKey: options.apiKey ?? (env.OPENAI_API_KEY || undefined),
      timeoutMs: options.timeoutMs,
    });
  const limiter = new RateLimiter({ rpm: options.rpm, tpm: options.tpm, clock });
  const tokenizer = getTokenizer('o200k_base');
  const queue = new LlmQueue(client, limiter, {
    concurrency: options.llmConcurrency,
    maxAttempts: options.maxAttempts,
    clock,
    countTokens: (text) => tokenizer.count(text),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const temperature = options.temperature ?? (defaultMaxTokensParam(options.model) === 'max_completion_tokens' ? undefined : 0);
  return { queue, limiter, inputBudget, temperature };
}
