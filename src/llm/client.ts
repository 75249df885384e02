import type { Outcome } from '../errors.js';
import type OpenAI from 'openai';
import type { APIConnectionError, APIError } from 'openai';
import { lazyClient, loadOpenAI } from './openai-sdk.js';
import type { LlmFailure } from './failure.js';
import { type HeaderGetter, type RateLimitSnapshot, parseRateLimitHeaders, parseRetryAfter } from './rate-limit-headers.js';

/** One chat message as tcompact sends it: text only. */
export interface ChatMessageParam {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessageParam[];
  /** Upper bound on the answer, sent as `max_tokens` or `max_completion_tokens` (see {@link ChatClientOptions}). */
  maxTokens: number;
  /** Omitted from the request when undefined (some reasoning models refuse any temperature). */
  temperature?: number;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

interface ChatAnswer {
  /** The answer's text; '' when the server sent no content (the caller's guards reject it). */
  text: string;
  finishReason: string | null;
  /** As the server reported it; null when it sent no usage (some local servers). */
  usage: ChatUsage | null;
  rateLimit: RateLimitSnapshot;
}

export type ChatOutcome = Outcome<ChatAnswer, LlmFailure>;

/** What the queue needs from a model endpoint; tests substitute a scripted one. */
export interface ChatClient {
  readonly model: string;
  /** Never throws: every failure comes back as data. */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome>;
}

interface ChatClientOptions {
  model: string;
  /** Already resolved from config or OPENAI_BASE_URL; undefined means the SDK's default (OpenAI). */
  baseURL?: string;
  /** Already resolved from config or OPENAI_API_KEY. Local servers (vLLM, Ollama) ignore it. */
  apiKey?: string;
  timeoutMs: number;
  /**
   * The request field that bounds the answer. OpenAI's reasoning models (o-series, gpt-5) accept only
   * `max_completion_tokens`; most other OpenAI-compatible servers read `max_tokens`.
   * @default 'max_completion_tokens' for model names starting with o<digit> or gpt-5, else 'max_tokens'
   */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Wall clock used to turn a Retry-After HTTP date into a delay. @default Date.now */
  now?: () => number;
}

/** Placeholder key for servers that need none: the SDK refuses to start without one. */
const NO_KEY = 'tcompact-no-key';

export function defaultMaxTokensParam(model: string): 'max_tokens' | 'max_completion_tokens' {
  return /^(o\d|gpt-5)/.test(model) ? 'max_completion_tokens' : 'max_tokens';
}

const CONTEXT_LENGTH_TEXT = /context[ _]length|maximum context|context window|too many tokens|prompt is too long|input is too long/i;

function headerGetter(headers: Headers | undefined): HeaderGetter {
  return (name) => headers?.get(name) ?? null;
}

/** What a non-2xx answer says, as the SDK's APIError carries it or as a line of a batch's error file gives it. */
interface HttpFailure {
  status: number;
  message: string;
  code: string | undefined;
  headers: HeaderGetter;
}

function fromApiError(err: APIError): HttpFailure {
  return {
    status: err.status as number,
    message: err.message,
    code: typeof err.code === 'string' ? err.code : undefined,
    headers: headerGetter(err.headers as Headers | undefined),
  };
}

function classifyHttpFailure(failure: HttpFailure, now: number): LlmFailure {
  const { status, message, code, headers: get } = failure;
  const rateLimit = parseRateLimitHeaders(get);
  if (status === 429) {
    if (code === 'insufficient_quota') return { code: 'quota_exceeded', status, message, rateLimit };
    const retryAfterMs = parseRetryAfter(get, now);
    return retryAfterMs === undefined
      ? { code: 'rate_limited', status, message, rateLimit }
      : { code: 'rate_limited', status, message, retryAfterMs, rateLimit };
  }
  if ((status === 400 || status === 413 || status === 422) && (code === 'context_length_exceeded' || CONTEXT_LENGTH_TEXT.test(message))) {
    return { code: 'context_length_exceeded', status, message };
  }
  if (status === 408) return { code: 'timeout', status, message };
  if (status === 409) return { code: 'conflict', status, message };
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(get, now);
    return retryAfterMs === undefined
      ? { code: 'server_error', status, message, rateLimit }
      : { code: 'server_error', status, message, retryAfterMs, rateLimit };
  }
  if (status === 401 || status === 403) return { code: 'auth', status, message };
  if (status === 404) return { code: 'not_found', status, message };
  return { code: 'bad_request', status, message };
}

interface CompletionBody {
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

/** The body of a chat request as tcompact sends it, online or as a line of a batch. */
export function chatBody(model: string, request: ChatRequest, maxTokensParam: 'max_tokens' | 'max_completion_tokens'): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: request.messages, [maxTokensParam]: request.maxTokens };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

/** Reads a chat completion body (a 2xx answer online, or the `response.body` of a batch output line). */
export function parseCompletion(data: unknown): Outcome<Omit<ChatAnswer, 'rateLimit'>, LlmFailure> {
  const parsed = data as CompletionBody | string | null;
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray(parsed.choices) || parsed.choices.length === 0) {
    return { ok: false, error: { code: 'bad_response', message: 'the response has no choices' } };
  }
  const choice = parsed.choices[0];
  const content = choice.message?.content;
  const text = typeof content === 'string' ? content : '';
  const u = parsed.usage;
  const usage =
    u && typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number'
      ? { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens }
      : null;
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  return { ok: true, value: { text, finishReason, usage } };
}

/**
 * The failure of a non-2xx answer given as data (a line of a batch's error file), classified as online: the message
 * reads as the SDK writes it ("429 Rate limit reached"), and the error's `code` counts as it does online.
 */
export function failureOfStatus(status: number, body: unknown, now: number): LlmFailure {
  const error = (body as { error?: { message?: unknown; code?: unknown } } | null)?.error;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  return classifyHttpFailure(
    {
      status,
      message: message ? `${status} ${message}` : `${status} status code (no body)`,
      code: typeof error?.code === 'string' ? error.code : undefined,
      headers: () => null,
    },
    now,
  );
}

/**
 * A chat client for any OpenAI-compatible endpoint, built on the official SDK with its own retries off
 * (`maxRetries: 0`): the queue owns the retry policy. Each request has its own AbortSignal timeout whose timer is
 * cleared however the request ends.
 */
export function createOpenAIChatClient(options: ChatClientOptions): ChatClient {
  const now = options.now ?? Date.now;
  const client = lazyClient({
    apiKey: options.apiKey ?? NO_KEY,
    baseURL: options.baseURL,
    maxRetries: 0,
    // Our AbortSignal decides; the SDK's own timer is only a backstop.
    timeout: options.timeoutMs * 2,
  });
  const maxTokensParam = options.maxTokensParam ?? defaultMaxTokensParam(options.model);

  async function complete(request: ChatRequest, outer?: AbortSignal): Promise<ChatOutcome> {
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = await loadOpenAI();
    const sdk = await client();
    if (outer?.aborted) return { ok: false, error: { code: 'aborted', message: 'aborted before the request was sent' } };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs);
    const onOuterAbort = () => controller.abort();
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const body = chatBody(options.model, request, maxTokensParam);
      const { data, response } = await sdk.chat.completions
        .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal: controller.signal })
        .withResponse();
      const rateLimit = parseRateLimitHeaders(headerGetter(response.headers));
      const parsed = parseCompletion(data);
      if (!parsed.ok) return { ok: false, error: { ...parsed.error, status: response.status, rateLimit } };
      return { ok: true, value: { ...parsed.value, rateLimit } };
    } catch (err) {
      if (timedOut) return { ok: false, error: { code: 'timeout', message: `no answer within ${options.timeoutMs} ms` } };
      if (outer?.aborted) return { ok: false, error: { code: 'aborted', message: 'the run was interrupted' } };
      if (err instanceof APIConnectionTimeoutError) return { ok: false, error: { code: 'timeout', message: err.message } };
      if (err instanceof APIUserAbortError) return { ok: false, error: { code: 'aborted', message: err.message } };
      if (err instanceof APIConnectionError) return { ok: false, error: { code: 'connection', message: connectionMessage(err) } };
      if (err instanceof APIError && typeof err.status === 'number') return { ok: false, error: classifyHttpFailure(fromApiError(err), now()) };
      return { ok: false, error: { code: 'bad_response', message: err instanceof Error ? err.message : String(err) } };
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  return { model: options.model, complete };
}

function connectionMessage(err: APIConnectionError): string {
  const cause = (err as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as Error & { cause?: { code?: string } }).cause?.code ?? cause.message) : undefined;
  return detail ? `${err.message} (${detail})` : err.message;
}
