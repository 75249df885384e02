import type { Message } from '../model/message.js';
import { type DraftTranscript, isObject } from './_items.js';
import { type RooRequest, type RooStep, isRooUiLog, rooRequests, rooSteps, rooUsage } from './_roo-ui.js';

/**
 * What Roo Code sent, read from the tags its context management leaves in the history (RooCodeInc/Roo-Code
 * src/core/condense/index.ts, src/core/context-management/index.ts, src/core/task/Task.ts), each shape as its versions
 * wrote it:
 * - condense v2 (cf5d42e1e1, 2026-01): a user summary (`isSummary`, `condenseId`) appended after the request's user
 *   message, every earlier message tagged `condenseParent`; from then on the summary onward is sent
 *   (getEffectiveApiHistory, getMessagesSinceLastSummary);
 * - condense v1, non-destructive (23605bed93, 2025-12): an assistant summary put before the last 3 messages, the
 *   messages between the first and it tagged; the first message, the summary and what follows are sent;
 * - condense v1 (7c1185ed33, 2025-05): the same summary before the last 3 messages, nothing tagged or deleted; the
 *   summary onward is sent;
 * - condense v1, destructive (3dfa5269ff, 2025-09): the history rewritten as the first message, the summary and the
 *   last 3 messages: the condensed messages are gone;
 * - sliding window (23605bed93, 2025-12): half of the visible messages after the first tagged `truncationParent`, a
 *   user marker (`isTruncationMarker`, `truncationId`) inserted before the first kept one; everything but the tagged
 *   messages is sent. Before it, the window deleted those messages from the history.
 * A condense or truncation runs before the request whose user message ends the history; the UI log's
 * `condense_context` and `sliding_window_truncation` entries, said during that request, place it.
 */

/** A Roo Code history as read: each element's role and raw value, its first message, and the messages built. */
export interface RooHistory {
  roles: readonly string[];
  raw: readonly unknown[];
  /** The index in `messages` of each element's first message. */
  starts: readonly number[];
  /** The messages built; the replies take their usage from the UI log here. */
  messages: Message[];
}

/**
 * One of Roo's points, in message indices: from the request of the reply at or after `index` (the summary's own place
 * when undefined) the messages before `keptHead` are sent, then the summary (or truncation marker), then the messages
 * from `keptFrom` on (the summary's own place: it is never sent twice; those after the summary when undefined).
 */
export interface RooPoint {
  kind: 'condense' | 'truncation';
  summary: number;
  index?: number;
  keptHead?: number;
  keptFrom?: number;
}

export interface RooContext {
  points: RooPoint[];
  /** How the points were found, for metadata.rooContext. */
  summary: Record<string, unknown>;
  /** Why what was sent cannot be rebuilt, when the history lost messages. */
  unreplayable?: string;
}

/** Condense v1 kept the last 3 messages after its summary (N_MESSAGES_TO_KEEP). */
const KEPT_AFTER_SUMMARY = 3;

const field = (raw: unknown, key: string): unknown => (isObject(raw) ? raw[key] : undefined);

/** Roo's points and usage from its history and, when there, its UI log (`entries`); sets each matched reply's usage. */
export function rooContext(history: RooHistory, entries: readonly unknown[] | undefined): RooContext {
  const ui = entries && isRooUiLog(entries) ? entries : undefined;
  const requests = ui ? rooRequests(ui) : [];
  const steps = ui ? rooSteps(ui) : [];
  const n = history.roles.length;
  const at = (element: number) => history.starts[element] ?? history.messages.length;
  const ts = (element: number) => {
    const v = field(history.raw[element], 'ts');
    return typeof v === 'number' ? v : undefined;
  };
  // Condense v1's summary is an assistant message no request answered.
  const replies = [...Array(n).keys()].filter((e) => history.roles[e] === 'assistant' && field(history.raw[e], 'isSummary') !== true);
  // The condense ids whose summary the history holds: the messages tagged with one are no longer sent.
  const condenseIds = new Set(
    history.raw.flatMap((r) => (field(r, 'isSummary') === true && field(r, 'condenseId') !== undefined ? [field(r, 'condenseId')] : [])),
  );
  const firstCondensed = history.raw.findIndex((r) => condenseIds.has(field(r, 'condenseParent')));
  const matched = matchRequests(requests, replies, ts);
  for (const [element, r] of matched.byReply) {
    const message = history.messages[at(element)];
    if (message?.role !== 'assistant') continue;
    message.usage = rooUsage(r);
    if (r.cost !== undefined) message.cost = r.cost;
  }
  // The whole prompt of each matched reply, to see where the record's prompt falls.
  const prompt = (element: number) => {
    const r = matched.byReply.get(element);
    if (!r) return undefined;
    const u = rooUsage(r);
    return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
  };
  const replyAfter = (time: number) => replies.find((e) => (ts(e) ?? -Infinity) > time);

  const points: RooPoint[] = [];
  let inferred = 0;
  let destructive = false;
  const condenseSteps = steps.filter((s) => s.kind === 'condense');
  const truncationSteps = steps.filter((s) => s.kind === 'truncation');
  const stepOf = (list: readonly RooStep[], id: unknown, ordinal: number) =>
    list.find((s) => s.id !== undefined && s.id === id) ?? (list.every((s) => s.id === undefined) ? list[ordinal] : undefined);
  let condenses = 0;
  let truncations = 0;
  for (let e = 0; e < n; e++) {
    const raw = history.raw[e];
    if (field(raw, 'isSummary') === true) {
      const step = stepOf(condenseSteps, field(raw, 'condenseId'), condenses++);
      // v2: appended after the request's user message, a fresh start from it.
      if (history.roles[e] === 'user') {
        points.push({ kind: 'condense', summary: at(e) });
        continue;
      }
      // Sent: the first message no condense hid (getEffectiveApiHistory, then getMessagesSinceLastSummary), the
      // summary and what follows it.
      const tagged = firstCondensed >= 0 && firstCondensed < e;
      const head = tagged ? at(firstCondensed) : e === 1 ? at(1) : undefined;
      if (!tagged && e === 1) destructive = true;
      const reply = step ? replyAfter(step.ts) : undefined;
      if (reply === undefined) inferred++;
      // A condense whose request the history does not hold yet (the task ended on its tail) is placed after the end.
      const place = reply ?? e + 1 + KEPT_AFTER_SUMMARY;
      const index = place >= n ? history.messages.length : at(place);
      points.push({ kind: 'condense', summary: at(e), index, ...(head === undefined ? {} : { keptHead: head }), keptFrom: at(e) });
    } else if (field(raw, 'isTruncationMarker') === true) {
      const id = field(raw, 'truncationId');
      const step = stepOf(truncationSteps, id, truncations++);
      const tagged = history.raw.flatMap((r, i) => (id !== undefined && field(r, 'truncationParent') === id ? [i] : []));
      if (tagged.length === 0) continue;
      let reply = step ? replyAfter(step.ts) : undefined;
      if (reply === undefined) {
        inferred++;
        reply = truncationRequest(history, e, tagged.length, prompt);
      }
      if (reply === undefined) continue;
      points.push({ kind: 'truncation', summary: at(e), index: at(reply), keptHead: at(tagged[0]), keptFrom: at(e) });
    }
  }
  const summary: Record<string, unknown> = {
    points: inferred > 0 ? 'inferred' : 'recorded',
    condenses: points.filter((p) => p.kind === 'condense').length,
    truncations: points.filter((p) => p.kind === 'truncation').length,
    ...(ui ? { uiSteps: steps.length } : {}),
    ...(matched.withoutReply > 0 ? { requestsWithoutReply: matched.withoutReply } : {}),
  };
  const unreplayable = destructive
    ? 'Roo Code deleted the messages it condensed from the history (its summary follows the first message, nothing is tagged): what the requests before it sent cannot be rebuilt'
    : matched.lost > 0
      ? `${matched.lost} of the requests ui_messages.json records have no reply in the history: Roo Code deleted them (a condense or sliding window of a version that did not yet tag messages), so what was sent cannot be rebuilt`
      : undefined;
  return { points, summary, ...(unreplayable ? { unreplayable } : {}) };
}

/**
 * Each request's reply: the first reply written in its time (from its `api_req_started` entry to the next one's).
 * `lost`: requests with usage and no reply before the last request that has one (the history lost them; a request
 * cancelled at the end leaves none either).
 */
function matchRequests(
  requests: readonly RooRequest[],
  replies: readonly number[],
  ts: (element: number) => number | undefined,
): { byReply: Map<number, RooRequest>; withoutReply: number; lost: number } {
  const byReply = new Map<number, RooRequest>();
  const unmatched: number[] = [];
  let lastMatched = -1;
  let k = 0;
  requests.forEach((r, j) => {
    while (k < replies.length && (ts(replies[k]) ?? -Infinity) < r.ts) k++;
    const reply = replies[k];
    if (reply !== undefined && (ts(reply) ?? Infinity) < (r.nextTs ?? Infinity)) {
      byReply.set(reply, r);
      lastMatched = j;
      k++;
    } else if (r.tokensIn + r.tokensOut + r.cacheWrites + r.cacheReads > 0) unmatched.push(j);
  });
  return { byReply, withoutReply: unmatched.length, lost: unmatched.filter((j) => j < lastMatched).length };
}

/**
 * The reply of the request at which Roo's sliding window tagged `removed` messages and inserted the marker at `marker`
 * (truncateConversation: floor((visible - 1) / 2), made even, of the visible messages after the first), when the UI
 * log does not say: a request whose history then held as many visible messages (those no earlier marker hides, markers
 * left out), the one whose recorded prompt fell when the record shows it, else the first.
 */
function truncationRequest(history: RooHistory, marker: number, removed: number, prompt: (element: number) => number | undefined): number | undefined {
  const hiddenIds = new Set<unknown>();
  for (let i = 0; i < marker; i++) if (field(history.raw[i], 'isTruncationMarker') === true) hiddenIds.add(field(history.raw[i], 'truncationId'));
  const candidates: number[] = [];
  let visible = 0;
  for (let e = 0; e + 1 < history.roles.length; e++) {
    const raw = history.raw[e];
    if (field(raw, 'isTruncationMarker') !== true && !hiddenIds.has(field(raw, 'truncationParent'))) visible++;
    if (e <= marker || history.roles[e] !== 'user' || history.roles[e + 1] !== 'assistant') continue;
    const half = Math.floor((visible - 1) * 0.5);
    if (half - (half % 2) === removed) candidates.push(e + 1);
  }
  const previousReply = (reply: number) => {
    for (let e = reply - 1; e >= 0; e--) if (history.roles[e] === 'assistant' && prompt(e) !== undefined) return e;
    return undefined;
  };
  const fell = candidates.find((reply) => {
    const before = previousReply(reply);
    const [now, then] = [prompt(reply), before === undefined ? undefined : prompt(before)];
    return now !== undefined && then !== undefined && now < then;
  });
  return fell ?? candidates[0];
}

/**
 * Roo's points as `metadata.compactions` records: the summary (or marker), the place of the request it applies to
 * (`index`, after the summary), the head kept before it (`keptHeadTo`) and the first message kept after it
 * (`keptFromIndex`).
 */
export function rooCompactions(points: readonly RooPoint[]): NonNullable<DraftTranscript['indexedMetadata']> {
  return (to) =>
    points.length === 0
      ? {}
      : {
          compactions: points.map((p) => ({
            summaryIndex: to(p.summary),
            ...(p.index === undefined ? {} : { index: to(p.index) }),
            // Right after the head's last message: the results of its calls go with it.
            ...(p.keptHead === undefined ? {} : { keptHeadTo: p.keptHead === 0 ? 0 : to(p.keptHead - 1) + 1 }),
            // Right after the message before the summary: the results that open the kept messages answer calls
            // before the summary, and the pairing repair moves them there.
            ...(p.keptFrom === undefined ? {} : { keptFromIndex: p.keptFrom === 0 ? 0 : to(p.keptFrom - 1) + 1 }),
            // The sliding window's marker is no summary a model call wrote.
            ...(p.kind === 'truncation' ? { truncation: true } : {}),
          })),
        };
}
