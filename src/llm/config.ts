import * as z from 'zod';
import { parseConfig } from '../model/parse.js';

/**
 * The model the LLM steps (`summarize`, `classify-tangents`) and the judge talk to, and how: from `tcompact run`'s flags
 * `--model`, `--llm`, `--llm-window`, `--llm-concurrency`, `--rpm`, `--tpm`, `--price-in`, `--price-out` (the config
 * file has no `llm` section), or from the library (`runPipeline`'s `llm`, `createLlmSession`). What the steps do with
 * it (`focus`, `keepLast`, `remove`) is each step's own config. Every default is here.
 */
/** The Batch API's limits on one batch: requests, and bytes of its input file. */
export const MAX_BATCH_REQUESTS = 50_000;
export const MAX_BATCH_BYTES = 200 * 1024 * 1024;
export const DEFAULT_BATCH_POLL_SECONDS = 60;

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
  /** US dollars per million prompt tokens answered through the Batch API. @default half of the price in */
  priceBatchIn: z.number().nonnegative().optional(),
  /** US dollars per million completion tokens answered through the Batch API. @default half of the price out */
  priceBatchOut: z.number().nonnegative().optional(),
  /** Send the requests through the Batch API instead of one by one (`--batch`). @default off */
  batch: z
    .strictObject({
      /** Where the batch journal (`batches.json`) and the downloaded results (`batches/`) are kept (required; `tcompact run` passes DIR). */
      dir: z.string().min(1).optional(),
      /** Seconds between two polls of a batch's status (`--batch-poll-seconds`); longer after a failed poll. @default 60 */
      pollSeconds: z.number().positive().default(DEFAULT_BATCH_POLL_SECONDS),
      /** Most requests in one batch (the API's limit). @default 50000 */
      maxRequests: z.number().int().min(1).max(MAX_BATCH_REQUESTS).default(MAX_BATCH_REQUESTS),
      /** Most bytes of one batch input file (the API's limit). @default 200 MB */
      maxBytes: z.number().int().min(1024).max(MAX_BATCH_BYTES).default(MAX_BATCH_BYTES),
      /** Cancel the batches an earlier run left outstanding and answer what they did not through the online queue (`--batch-cancel`). @default false */
      cancel: z.boolean().default(false),
    })
    .optional(),
});

export type LlmOptions = z.output<typeof LlmOptionsSchema>;
export type LlmOptionsInput = z.input<typeof LlmOptionsSchema>;

/** Validates LLM options at the boundary; the error names every bad path (`llm.rpm: ...`). */
export function parseLlmOptions(value: unknown, source = 'llm'): LlmOptions {
  return parseConfig(LlmOptionsSchema, value, { path: [source] });
}

export const DEFAULT_SUMMARIZER_WINDOW = 128_000;
