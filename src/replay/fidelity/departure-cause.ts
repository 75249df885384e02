import type { Message } from '../../model/message.js';
import { callThread, followsResume, holdsUnloggedContent, isSourceSummary, isSyntheticReply } from '../../model/recorded.js';

/** What the record shows where a replayed call first departs from it (see {@link departureCauses}). */
export type DepartureCause =
  'synthetic-reply' | 'unlogged-content' | 'source-compaction' | 'branch-switch' | 'resume-rebuild' | 'first-call' | 'unexplained-jump';

/** One call's prompt, recorded against replayed, and the unlogged tokens the replayed one carries. */
export interface CallPrompt {
  recorded: number;
  replayed: number;
  unlogged: number;
}

/** Where a call departs: the messages since the previous call held against the record, and both calls' prompts. */
export interface DepartureContext {
  messages: readonly Message[];
  /** The index of the previous call's reply held against the record; -1 for the first such call. */
  from: number;
  /** The index of the departing call's reply. */
  to: number;
  call: CallPrompt;
  /** The previous call held against the record, if any. */
  previous?: CallPrompt;
  /** Tokens the token scale placed with the message at this index as unlogged content (`unloggedGrowth`); 0 for none. */
  unloggedAt: (index: number) => number;
  /** Tokens of unrecorded system prompt and tools the replay adds to every call. */
  basePrompt: number;
}

interface Detector {
  cause: DepartureCause;
  explains: (c: DepartureContext) => boolean;
}

/** The messages after the previous call up to the departing call's reply, itself included. */
const since = (c: DepartureContext) => c.messages.slice(c.from + 1, c.to + 1);

/**
 * Each cause with the test that finds it, in the order they are reported. A departure has every cause whose test holds;
 * `unexplained-jump` only when none does.
 */
export const DEPARTURE_DETECTORS: readonly Detector[] = [
  // A reply no model produced, billed as a call or read as a prompt of 0 tokens (the previous call's reply included:
  // the token scale then takes the next call's whole input as growth).
  { cause: 'synthetic-reply', explains: (c) => c.messages.slice(Math.max(0, c.from), c.to + 1).some(isSyntheticReply) },
  // Content the provider had that the log lacks: placed by the token scale in this interval, held by a message the log
  // shows only in part, or carried by the replay while the record's input fell (the record took it back).
  {
    cause: 'unlogged-content',
    explains: (c) => {
      for (let i = Math.max(0, c.from); i < c.to; i++) if (c.unloggedAt(i) > 0) return true;
      if (since(c).some(holdsUnloggedContent)) return true;
      return c.call.unlogged > 0 && c.previous !== undefined && c.call.recorded < c.previous.recorded;
    },
  },
  { cause: 'source-compaction', explains: (c) => since(c).some(isSourceSummary) },
  // The call before was on another branch of a forked session (`thread`): its input is no start for this one's.
  { cause: 'branch-switch', explains: (c) => c.from >= 0 && callThread(c.messages[c.from]) !== callThread(c.messages[c.to]) },
  { cause: 'resume-rebuild', explains: (c) => since(c).some(followsResume) },
  // The first call without the system prompt and tools the session file does not hold (`--base-prompt recorded`).
  { cause: 'first-call', explains: (c) => c.from < 0 && c.basePrompt === 0 },
];

/** The causes the record shows at a departing call, in the detectors' order; `unexplained-jump` when none applies. */
export function departureCauses(c: DepartureContext): DepartureCause[] {
  const found = DEPARTURE_DETECTORS.filter((d) => d.explains(c)).map((d) => d.cause);
  return found.length > 0 ? found : ['unexplained-jump'];
}

/** Each cause as the reports name it. */
export const DEPARTURE_LABELS: Record<DepartureCause, string> = {
  'synthetic-reply': 'synthetic reply',
  'unlogged-content': 'unlogged content',
  'source-compaction': "source's compaction",
  'branch-switch': 'branch switch',
  'resume-rebuild': 'resume rebuild',
  'first-call': 'first call, no base prompt',
  'unexplained-jump': 'unexplained jump',
};
