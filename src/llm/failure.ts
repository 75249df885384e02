import type { RateLimitSnapshot } from './rate-limit-headers.js';

/**
 * Why one request to the model failed. Stable: these codes appear in reports. All travel under the project code
 * `E_LLM`; this finer code says what to do about it.
 */
export const LLM_FAILURE_CODES = {
  rate_limited: 'HTTP 429: the server asked to slow down (retried after Retry-After, capped at 60 s)',
  quota_exceeded: 'HTTP 429 with insufficient_quota: the account is out of credit (not retried)',
  server_error: 'HTTP 5xx (retried)',
  timeout: 'no answer within timeoutMs, or HTTP 408 (retried)',
  conflict: 'HTTP 409 (retried)',
  connection: 'the connection failed or was reset (retried)',
  context_length_exceeded: 'the prompt is longer than the model accepts (never retried as is: the span is shrunk)',
  auth: 'HTTP 401/403: the API key is missing or refused (not retried)',
  not_found: 'HTTP 404: unknown model or endpoint (not retried)',
  bad_request: 'another HTTP 4xx (not retried)',
  bad_response: 'the server answered 2xx with a body that is not a chat completion',
  exceeds_tpm: 'the request alone needs more tokens than the tokens-per-minute limit allows',
  aborted: 'the run was interrupted',
  batch_pending: 'the request waits for a batch of the Batch API (only while a batch run gathers its requests; never final)',
} as const;

export type LlmFailureCode = keyof typeof LLM_FAILURE_CODES;

export interface LlmFailure {
  code: LlmFailureCode;
  message: string;
  /** HTTP status when there was a response. */
  status?: number;
  /** The wait the server asked for (ms), uncapped; see backoff.ts for the cap. */
  retryAfterMs?: number;
  rateLimit?: RateLimitSnapshot;
}

/** The retry policy in one place (as openai-node's `shouldRetry`): 408, 409, 429, 5xx and connection failures. */
export function isRetryable(code: LlmFailureCode): boolean {
  return code === 'rate_limited' || code === 'server_error' || code === 'timeout' || code === 'conflict' || code === 'connection';
}
