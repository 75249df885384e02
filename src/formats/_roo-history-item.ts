import { isObject } from './_items.js';
import { rooUsage } from './_roo-ui.js';

/**
 * Roo Code's record of a task (`history_item.json` beside its history, RooCodeInc/Roo-Code
 * src/core/task-persistence/TaskHistoryStore.ts from b598efb422, 2026-02; the `HistoryItem` of
 * packages/types/src/history.ts, before that kept in the extension's state only). Its `tokensIn`, `tokensOut`,
 * `cacheWrites`, `cacheReads` and `totalCost` are the sums of the task's `api_req_started` entries
 * (taskMetadata.ts: getApiMetrics over ui_messages.json), so `tokensIn` counts the cache as each request's did.
 */
export interface RooHistoryItem {
  /** The task's last activity (`ts`), which tells how its `tokensIn` counted the cache. */
  ts: number;
  tokensIn: number;
  tokensOut: number;
  cacheWrites: number;
  cacheReads: number;
  totalCost?: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A parsed `history_item.json` as Roo's HistoryItem (id, ts, tokensIn, tokensOut, totalCost), or undefined. */
export function rooHistoryItem(value: unknown): RooHistoryItem | undefined {
  if (!isObject(value) || typeof value.id !== 'string') return undefined;
  const [ts, tokensIn, tokensOut] = [num(value.ts), num(value.tokensIn), num(value.tokensOut)];
  if (ts === undefined || tokensIn === undefined || tokensOut === undefined || num(value.totalCost) === undefined) return undefined;
  return { ts, tokensIn, tokensOut, cacheWrites: num(value.cacheWrites) ?? 0, cacheReads: num(value.cacheReads) ?? 0, totalCost: num(value.totalCost) };
}

/**
 * The task's totals as metadata.sessionUsage (model/recorded.ts `sessionTotals`: never spread over the replies), in
 * Anthropic's names. `tokensIn` holds the cache from Roo-Code 416fa5727e (2025-11) on, and for a task last active
 * before then an Anthropic-protocol provider's left it out (see rooUsage): the item does not name the protocol, so
 * such a task's `tokensIn` is taken as the uncached input.
 */
export function rooSessionUsage(item: RooHistoryItem): Record<string, unknown> | undefined {
  if (item.tokensIn + item.tokensOut + item.cacheWrites + item.cacheReads === 0) return undefined;
  return { usage: rooUsage({ ts: item.ts, tokensIn: item.tokensIn, tokensOut: item.tokensOut, cacheWrites: item.cacheWrites, cacheReads: item.cacheReads }) };
}
