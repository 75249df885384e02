import { isObject } from './_items.js';
import { type RequestUsage, isApiRequest, requestInfo } from './_cline-ui.js';

/**
 * Roo Code's UI log (`ui_messages.json`, RooCodeInc/Roo-Code packages/types/src/message.ts `ClineMessage`), which holds
 * all the usage Roo records: its API history has none. Roo stamps no entry with `conversationHistoryIndex`, so a
 * request is tied to its reply by time (the reply is appended after its `api_req_started` entry, before the next one).
 */

/** One `api_req_started` entry: the request's time, the next request's, and its usage (`ClineApiReqInfo`). */
export interface RooRequest extends RequestUsage {
  ts: number;
  /** The time of the next `api_req_started` entry; undefined for the last. */
  nextTs?: number;
  apiProtocol?: string;
}

/** A context step Roo said during a request: `condense_context` (`contextCondense`) or `sliding_window_truncation`. */
export interface RooStep {
  ts: number;
  kind: 'condense' | 'truncation';
  /** The summary's `condenseId` or the marker's `truncationId`, when the entry names it. */
  id?: string;
  prevContextTokens?: number;
  newContextTokens?: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Whether a UI log is Roo Code's: it records requests, and none of its entries carries Cline's history index. */
export function isRooUiLog(entries: readonly unknown[]): boolean {
  return entries.some(isApiRequest) && !entries.some((e) => isObject(e) && e.conversationHistoryIndex !== undefined);
}

/** The requests of a Roo UI log, in order; an entry whose text is not JSON is no request (its usage is unknown). */
export function rooRequests(entries: readonly unknown[]): RooRequest[] {
  const out: RooRequest[] = [];
  for (const entry of entries) {
    const request = isApiRequest(entry) ? requestInfo(entry) : undefined;
    if (!isApiRequest(entry) || !request) continue;
    if (out.length > 0) out[out.length - 1].nextTs = num(entry.ts);
    const { info, usage } = request;
    out.push({ ts: num(entry.ts), ...usage, ...(typeof info.apiProtocol === 'string' ? { apiProtocol: info.apiProtocol } : {}) });
  }
  return out;
}

/** The condense and sliding-window entries of a Roo UI log, in order (a partial or failed condense is none). */
export function rooSteps(entries: readonly unknown[]): RooStep[] {
  const out: RooStep[] = [];
  for (const entry of entries) {
    if (!isObject(entry) || entry.type !== 'say') continue;
    const data = entry.say === 'condense_context' ? entry.contextCondense : entry.say === 'sliding_window_truncation' ? entry.contextTruncation : undefined;
    if (!isObject(data) || entry.partial === true) continue;
    const id = entry.say === 'condense_context' ? data.condenseId : data.truncationId;
    out.push({
      ts: num(entry.ts),
      kind: entry.say === 'condense_context' ? 'condense' : 'truncation',
      ...(typeof id === 'string' ? { id } : {}),
      ...(typeof data.prevContextTokens === 'number' ? { prevContextTokens: data.prevContextTokens } : {}),
      ...(typeof data.newContextTokens === 'number' ? { newContextTokens: data.newContextTokens } : {}),
    });
  }
  return out;
}

/**
 * From Roo-Code 416fa5727e (2025-10-31, "Fix cost and token tracking between provider styles") `tokensIn` is the whole
 * input, cache reads and writes included, whatever the provider; before, it was the provider's input count, which an
 * Anthropic-protocol provider reports without the cache.
 */
const TOTAL_INPUT_FROM = Date.UTC(2025, 10, 1);

/** A Roo request's usage in Anthropic's field names. */
export function rooUsage(r: RooRequest): Record<string, number> {
  const withCache = r.ts >= TOTAL_INPUT_FROM || (r.apiProtocol !== undefined && r.apiProtocol !== 'anthropic');
  return {
    input_tokens: withCache ? Math.max(0, r.tokensIn - r.cacheWrites - r.cacheReads) : r.tokensIn,
    cache_creation_input_tokens: r.cacheWrites,
    cache_read_input_tokens: r.cacheReads,
    output_tokens: r.tokensOut,
  };
}
