import * as z from 'zod';
import { contentText } from '../model/content.js';
import { type AssistantMessage, type Message, isAssistant, isTool } from '../model/message.js';
import { lastUserRequestIndex } from '../model/validity.js';
import { refOf } from '../refs/ref-store.js';
import { countMessage, countTranscript, totalOf } from '../tokens/breakdown.js';
import { DEFAULT_WINDOW } from '../tokens/window.js';
import { unchanged, withMessages } from './_edit.js';
import { protectedRange } from './boundaries.js';
import type { Strategy } from './types.js';

const TruncateConfigSchema = z.strictObject({
  /** Leading messages always kept. @default the leading system/developer messages and the first user message */
  keepFirst: z.number().int().min(0).optional(),
  /** Context window in tokens; the default budget is a share of it. @default 200000 */
  window: z.number().int().positive().default(DEFAULT_WINDOW),
  /** Tokens the truncated transcript may use, tool definitions included. @default floor(0.9 * window) */
  budget: z.number().int().positive().optional(),
});

const DEFAULT_BUDGET_SHARE = 0.9;
/** The first characters of every marker truncate leaves. */
export const TRUNCATION_PREFIX = '[CONTEXT REDUCED - emergency truncation';
const MARKER_RE = /^\[CONTEXT REDUCED - emergency truncation: (\d+) messages? removed\]/;

export function truncationMarkerText(removed: number, ref: string | undefined): string {
  return `${TRUNCATION_PREFIX}: ${removed} message${removed === 1 ? '' : 's'} removed]${ref ? ` (ref: ${ref})` : ''}`;
}

/** How many messages an earlier truncation marker stands for, or undefined when `m` is not one. */
function markerCount(m: Message): number | undefined {
  if (!isAssistant(m) || m.tool_calls?.length) return undefined;
  const match = MARKER_RE.exec(contentText(m.content));
  return match ? Number(match[1]) : undefined;
}

/** Whether an emergency truncation left its marker in `messages`. */
export function hasTruncationMarker(messages: readonly Message[]): boolean {
  return messages.some((m) => markerCount(m) !== undefined);
}

/**
 * `truncate`: emergency truncation. Keeps the kept-first messages, a marker, and the longest suffix that fits the
 * budget, cutting only before a non-tool message (so a call never loses its results) and never after the last user
 * request. The marker is an `assistant` message: a `user` marker would become the "last request" when the request is
 * in the kept head, and would read as a request to whatever parses the transcript later. If even the shortest allowed
 * suffix does not fit, counting messages only, nothing is removed (removing would lose content, often a summary, and
 * still not fit) and a note says by how much it is over; if only the tool definitions keep it over, that suffix is
 * kept; if nothing would be saved, the transcript is left unchanged.
 */
export const truncate: Strategy<typeof TruncateConfigSchema> = {
  name: 'truncate',
  summary: 'emergency truncation: keep the head, a marker, and the last messages that fit the token budget',
  config: TruncateConfigSchema,
  apply(transcript, config, ctx) {
    const none = { truncations: 0 };
    const messages = transcript.messages;
    const budget = config.budget ?? Math.floor(DEFAULT_BUDGET_SHARE * config.window);
    const counted = countTranscript(transcript, ctx.tokenizer);
    const before = counted.total;
    if (before <= budget) return unchanged(transcript, none);
    const n = messages.length;
    let from = protectedRange(messages, { keepLast: 0, keepFirst: config.keepFirst }).headEnd;
    // The results of a call made in the kept head stay with it.
    while (from < n && isTool(messages[from])) from++;
    const lastUser = lastUserRequestIndex(messages);
    const maxCut = lastUser >= from ? lastUser : n;
    const tokens = messages.map((m) => totalOf(countMessage(m, ctx.tokenizer)));
    const suffix = new Array<number>(n + 1).fill(0);
    for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + tokens[i];
    const fixed = before - suffix[from]; // the tool definitions and the kept head
    const legal = (c: number) => c === n || !isTool(messages[c]);
    const build = (cut: number) => {
      const removed = messages.slice(from, cut);
      let count = 0;
      for (const m of removed) count += markerCount(m) ?? 1;
      const ref = ctx.refs ? refOf(JSON.stringify(removed)) : undefined;
      const marker: AssistantMessage = { role: 'assistant', content: truncationMarkerText(count, ref) };
      return { removed, marker, total: fixed + totalOf(countMessage(marker, ctx.tokenizer)) + suffix[cut] };
    };
    // Tool definitions are left out of this test: prune-tools may drop those whose calls go, and a decision that
    // depended on them would change when the output is compacted again.
    const least = fixed - counted.byCategory.tools + suffix[maxCut];
    if (least > budget) {
      return {
        ...unchanged(transcript, none),
        notes: [`cannot fit the budget of ${budget} tokens: the kept head and the messages from the last user request on are ${least} tokens; nothing removed`],
      };
    }
    let cut = maxCut;
    for (let c = from; c <= maxCut; c++) {
      // The marker's size hardly depends on the cut; check the real one only where the suffix alone would fit.
      if (legal(c) && fixed + suffix[c] < budget && build(c).total <= budget) {
        cut = c;
        break;
      }
    }
    const result = build(cut);
    if (result.removed.every((m) => markerCount(m) !== undefined) || result.total >= before) return unchanged(transcript, none);
    ctx.refs?.putJson(JSON.stringify(result.removed));
    return {
      transcript: withMessages(transcript, [...messages.slice(0, from), result.marker, ...messages.slice(cut)]),
      messagesChanged: 0,
      messagesRemoved: result.removed.length,
      details: { truncations: 1 },
    };
  },
};
