import { z } from 'zod';
import { parseConfig } from '../model/parse.js';

/**
 * The model the LLM steps (`summarize`, `classify-tangents`) and the judge talk to, and how: from `tcompact run`'s flags
 * `--model`, `--llm`, `--llm-window`, `--llm-concurrency`, `--rpm`, `--tpm`, `--price-in`, `--price-out` (the config
 * file has no `llm` section), or from the library (`runPipeline`'s `llm`, `createLlmSession`). What the steps do with
 * it (`focus`, `keepLast`, `remove`) is each step's own config. Every default is here.
 */
export const LlmOptionsSchema = z.strictObject({
  /** Model name sent to the server (e.g. `gpt-4o-mini`, `qwen2.5:7b`). Without a model no LLM step runs. */
  model: z.string().min(1),
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1` for Ollama. @default env OPENAI_BASE_URL, else OpenAI */
  baseURL: z.url().optional(),
  /** @default env OPENAI_API_KEY; local servers need none */
  apiKey: z.string().min(1).optional(),
  /** Requests in flight at once. @default 4 */
  llmConcurrency: z.number().int().min(1).max(256).default(4),
  /** Requests per minute, held in every 60-second window. @default no limit of our own (the server's headers still apply) */
  rpm: z.number().int().positive().optional(),
  /** Tokens per minute (prompt + max_tokens reserved per request). @default no limit of our own */
  tpm: z.number().int().positive().optional(),
  /** Per-request timeout in milliseconds. @default 120000 */
  timeoutMs: z.number().int().positive().default(120_000),
  /** Requests per job (429/5xx/timeouts), and answers per summary (empty or malformed ones), before the fallback. @default 3 */
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** Upper bound on each answer's tokens. @default 4096 */
  maxTokens: z.number().int().positive().default(4096),
  /** Sampling temperature. @default 0, except for o-series and gpt-5 models, which refuse it: then none is sent */
  temperature: z.number().min(0).max(2).optional(),
  /** The model's context window. @default gpt-tokenizer's figure for the model, else 128000 */
  contextWindow: z.number().int().positive().optional(),
  /** US dollars per million prompt tokens. @default gpt-tokenizer's price for the model, if any */
  priceIn: z.number().nonnegative().optional(),
  /** US dollars per million completion tokens. @default gpt-tokenizer's price for the model, if any */
  priceOut: z.number().nonnegative().optional(),
  /** Directory of the answer cache. @default none (`tcompact run` passes `<out>/llm-cache`) */
  cacheDir: z.string().min(1).optional(),
});

export type LlmOptions = z.output<typeof LlmOptionsSchema>;
export type LlmOptionsInput = z.input<typeof LlmOptionsSchema>;

/** Validates LLM options at the boundary; the error names every bad path (`llm.rpm: ...`). */
export function parseLlmOptions(value: unknown, source = 'llm'): LlmOptions {
  return parseConfig(LlmOptionsSchema, value, { path: [source] });
}

export const DEFAULT_SUMMARIZER_WINDOW = 128_000;
