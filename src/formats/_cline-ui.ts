import { isObject } from './_items.js';

/**
 * One API request as Cline's UI log records it (`ui_messages.json`, cline apps/vscode/src/shared/ExtensionMessage.ts
 * `ClineMessage` and `ClineApiReqInfo`): the `api_req_started` entry, whose `text` is the JSON of the request's usage.
 */
export interface UiRequest extends RequestUsage {
  /** The entry's index in `ui_messages.json`. */
  element: number;
  ts: number;
  /** The time of the next UI entry (the request's first output, or what followed it); undefined for the last entry. */
  nextTs?: number;
  model?: string;
  provider?: string;
  /**
   * Index in the history of the reply the request produced: Cline writes the entry before it appends the request's
   * user message (task/index.ts), so `conversationHistoryIndex` is then the last reply's, two before this one's.
   */
  replyElement?: number;
  /**
   * The history range deleted from what the request sent (inclusive; messages 0 and 1 always stay). The entry itself
   * carries the range in force before the request's truncation step ran: the range it used is on the next UI entry
   * (`addToClineMessages` stamps every entry with the range of its time). Undefined when none was in force.
   */
  deletedRange?: [number, number];
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

const rangeOf = (v: unknown): [number, number] | undefined =>
  Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && Number.isInteger(v[1]) && v[1] >= v[0] ? [v[0] as number, v[1] as number] : undefined;

/** Whether a UI entry is an `api_req_started` whose text is its usage. */
export function isApiRequest(entry: unknown): entry is Record<string, unknown> & { text: string } {
  return isObject(entry) && entry.type === 'say' && entry.say === 'api_req_started' && typeof entry.text === 'string';
}

/**
 * The usage an `api_req_started` entry's text records (`ClineApiReqInfo`, which Roo Code's keeps), as Cline or Roo
 * counted it: `tokensIn` is the provider's input tokens for Cline (see {@link usageOfCline}), as Roo's version counted
 * it for Roo (see rooUsage).
 */
export interface RequestUsage {
  tokensIn: number;
  tokensOut: number;
  cacheWrites: number;
  cacheReads: number;
  /** The extension's own cost of the request, when it set one. */
  cost?: number;
}

/** An `api_req_started` entry's text parsed, and its usage; undefined when the text is not a JSON object (its usage is unknown). */
export function requestInfo(entry: { text: string }): { info: Record<string, unknown>; usage: RequestUsage } | undefined {
  let info: unknown;
  try {
    info = JSON.parse(entry.text);
  } catch {
    return undefined;
  }
  if (!isObject(info)) return undefined;
  const usage: RequestUsage = {
    tokensIn: num(info.tokensIn),
    tokensOut: num(info.tokensOut),
    cacheWrites: num(info.cacheWrites),
    cacheReads: num(info.cacheReads),
  };
  if (typeof info.cost === 'number' && Number.isFinite(info.cost)) usage.cost = info.cost;
  return { info, usage };
}

/** The API requests a UI log records, in order; an entry whose text is not JSON is no request (its usage is unknown). */
export function uiRequests(entries: readonly unknown[]): UiRequest[] {
  const out: UiRequest[] = [];
  entries.forEach((entry, i) => {
    const request = isApiRequest(entry) ? requestInfo(entry) : undefined;
    if (!isApiRequest(entry) || !request) return;
    const next = entries.slice(i + 1).find(isObject);
    const range = rangeOf(next ? next.conversationHistoryDeletedRange : entry.conversationHistoryDeletedRange);
    const modelInfo = isObject(entry.modelInfo) ? entry.modelInfo : undefined;
    const historyIndex = entry.conversationHistoryIndex;
    out.push({
      element: i,
      ts: num(entry.ts),
      ...(next && typeof next.ts === 'number' ? { nextTs: next.ts } : {}),
      ...request.usage,
      ...(typeof modelInfo?.modelId === 'string' ? { model: modelInfo.modelId } : {}),
      ...(typeof modelInfo?.providerId === 'string' ? { provider: modelInfo.providerId } : {}),
      ...(typeof historyIndex === 'number' && Number.isInteger(historyIndex) ? { replyElement: historyIndex + 2 } : {}),
      ...(range ? { deletedRange: range } : {}),
    });
  });
  return out;
}

/**
 * A request's usage in Anthropic's field names. Cline's providers report `inputTokens` without the cache reads and
 * writes (anthropic.ts, openrouter.ts, openai-native.ts subtract them), except the generic OpenAI-compatible one
 * (`openai`, providers/openai.ts: `prompt_tokens`, which holds the cache reads, and DeepSeek's
 * `prompt_cache_miss_tokens` as writes, which it holds too).
 */
export function usageOfCline(tokens: { input: number; output: number; writes: number; reads: number }, provider: string | undefined): Record<string, number> {
  const uncached = provider === 'openai' ? Math.max(0, tokens.input - tokens.reads - tokens.writes) : tokens.input;
  return {
    input_tokens: uncached,
    cache_creation_input_tokens: tokens.writes,
    cache_read_input_tokens: tokens.reads,
    output_tokens: tokens.output,
  };
}
