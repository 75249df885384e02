import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import type { MessageFate } from '../refs/restore.js';
import { probeSites } from '../retention/probe-sites.js';
import type { Probe } from '../retention/probes.js';
import { countMessage, countTranscript, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { type AlignedRow, alignMessages } from './align.js';

/** A probe an eval lost on this transcript, as lost.jsonl has it. */
export interface LostProbe {
  strategy: string;
  /** Set when it was lost on the source's own compaction span (the reference), not on the whole transcript. */
  compaction?: number;
  probe: Probe;
}

/**
 * The row `tcompact eval --compacted` gives the archive it audits: "compacted", or "compacted: STRATEGIES" from the
 * run's journal; the other rows are the strategies the eval ran itself, and the source's own summaries.
 */
const isRunRow = (strategy: string): boolean => strategy === 'compacted' || strategy.startsWith('compacted: ');

export interface ViewRow extends AlignedRow {
  tokensBefore: number;
  tokensAfter: number;
}

/** Everything a transcript's page shows. */
export interface TranscriptView {
  id: string;
  /** Where the transcript was read from, `file:line`, when known. */
  source?: string;
  tokenizer: string;
  /** The strategies the run was given (report.json `settings.strategies`). */
  strategies: readonly string[];
  original: readonly Message[];
  compacted: readonly Message[];
  rows: ViewRow[];
  /** The transcript's tokens before and after, as the run counts them (messages and tool definitions). */
  tokens: { before: number; after: number };
  /** Of those, the tool definitions' (prune-tools removes the ones never called). */
  tools: { before: number; after: number };
  /** Tokens of each message. */
  messageTokens: { original: number[]; compacted: number[] };
  /**
   * With an eval folder: the probes lost on this transcript and where they occurred in the original; `byRun` for those
   * the run's compaction lost (the others are the eval's own strategies').
   */
  lost?: (LostProbe & { sites: number[]; byRun: boolean })[];
}

interface ViewInput {
  original: Transcript;
  compacted: Transcript;
  fates: readonly MessageFate[];
  tokenizer: Tokenizer;
  steps: readonly string[];
  strategies: readonly string[];
  /** The run's side store (to read what a span placeholder replaced). */
  lookup?: (ref: string) => string | undefined;
  source?: string;
  lost?: readonly LostProbe[];
}

const sum = (values: readonly number[], at: readonly number[]): number => at.reduce((n, i) => n + values[i], 0);
const total = (values: readonly number[]): number => values.reduce((n, v) => n + v, 0);

/** Aligns a transcript with its compacted form and counts every row with the run's tokenizer. */
export function transcriptView(input: ViewInput): TranscriptView {
  const { original, compacted, tokenizer } = input;
  const count = (messages: readonly Message[]) => messages.map((m) => totalOf(countMessage(m, tokenizer)));
  const messageTokens = { original: count(original.messages), compacted: count(compacted.messages) };
  const before = countTranscript(original, tokenizer).total;
  const after = countTranscript(compacted, tokenizer).total;
  const rows = alignMessages({ original: original.messages, compacted: compacted.messages, fates: input.fates, steps: input.steps, lookup: input.lookup }).map(
    (r) => ({
      ...r,
      tokensBefore: sum(messageTokens.original, r.before),
      tokensAfter: sum(messageTokens.compacted, r.after),
    }),
  );
  const view: TranscriptView = {
    id: original.id,
    tokenizer: tokenizer.name,
    strategies: input.strategies,
    original: original.messages,
    compacted: compacted.messages,
    rows,
    tokens: { before, after },
    tools: {
      before: before - total(messageTokens.original),
      after: after - total(messageTokens.compacted),
    },
    messageTokens,
  };
  if (input.source !== undefined) view.source = input.source;
  if (input.lost) {
    const sitesOf = probeSites(original.messages);
    view.lost = input.lost.map((l) => ({ ...l, sites: sitesOf(l.probe), byRun: isRunRow(l.strategy) && l.compaction === undefined }));
  }
  return view;
}
