import type { Message } from '../model/message.js';
import { type ContextUpdate, type RewriteTarget, rewriteTarget } from './_cline-rewrites.js';
import type { DeletedRange } from './_cline-truncation.js';

/** The history as read: each element's first message, its raw value, and the messages built. */
export interface ClineHistory {
  messages: readonly Message[];
  /** The index in `messages` of each element's first message. */
  starts: readonly number[];
  raw: readonly unknown[];
}

/** One request of the task: the reply it produced, and when its updates are in force. */
export interface ClineRequest {
  replyElement: number;
  /** Whether an update of `context_history.json`, written at time `ts`, was in force when the request was sent. */
  sees: (ts: number) => boolean;
}

/**
 * What Cline sent from one request on, where it changed: messages before `keptHead` and from `keptFrom` on (all of
 * them without a range), with `rewrites` in place of the blocks' texts. `index` is the request's user message.
 */
export interface ClineContextChange {
  index: number;
  keptHead: number;
  keptFrom: number;
  rewrites: (RewriteTarget & { text: string })[];
}

/**
 * The changes of what Cline sent, request by request: a new deleted range, or a new set of rewrites in force. A
 * request's range is the latest of `ranges` at or before its reply; its rewrites, each block's latest update it sees.
 */
export function contextChanges(
  history: ClineHistory,
  requests: readonly ClineRequest[],
  ranges: readonly DeletedRange[],
  updates: readonly ContextUpdate[],
): ClineContextChange[] {
  const at = (element: number) => history.starts[element] ?? history.messages.length;
  const targets = new Map<string, RewriteTarget | undefined>();
  const targetOf = (u: ContextUpdate) => {
    const key = `${u.element}:${u.block}`;
    if (!targets.has(key)) targets.set(key, rewriteTarget(history.raw[u.element], u.block, history.messages, at(u.element), at(u.element + 1)));
    return targets.get(key);
  };
  const out: ClineContextChange[] = [];
  // The first request sends everything as written: no change to record.
  let previous = JSON.stringify([undefined, []]);
  for (const request of requests) {
    const range = [...ranges].reverse().find((r) => r.replyElement <= request.replyElement)?.range;
    const latest = new Map<string, ContextUpdate>();
    for (const u of updates)
      if (request.sees(u.ts) && (latest.get(`${u.element}:${u.block}`)?.ts ?? -Infinity) <= u.ts) latest.set(`${u.element}:${u.block}`, u);
    const rewrites = [...latest.values()].flatMap((u) => {
      const target = targetOf(u);
      return target ? [{ ...target, text: u.text }] : [];
    });
    const key = JSON.stringify([range, [...latest.values()].map((u) => [u.element, u.block, u.ts])]);
    if (key === previous) continue;
    previous = key;
    out.push({
      index: at(request.replyElement - 1),
      keptHead: range ? at(range[0]) : 0,
      keptFrom: range ? at(range[1] + 1) : 0,
      rewrites,
    });
  }
  return out;
}
