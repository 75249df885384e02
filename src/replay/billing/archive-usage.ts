import type { Transcript } from '../../model/transcript.js';
import { int } from '../../report/format.js';
import { UNRECORDED_MODEL } from './cache-choice.js';
import { type EmbeddedUsage, type RecordedUsage, embeddedUsage, emptyRecordedUsage, recordedUsage, sessionTotalUsage } from './recorded-usage.js';

/** One transcript's recorded bill: its own calls and the subagent calls its source embedded beside them. */
export interface TranscriptUsage {
  recorded?: RecordedUsage;
  embedded?: EmbeddedUsage[];
  /** The session's totals, when its source records usage only so (no call recorded one by one). */
  sessionTotals?: RecordedUsage;
}

/** An archive's recorded bill in tokens. */
export interface ArchiveUsageTotal {
  /** Transcripts with usage of their own. */
  transcripts: number;
  recorded: RecordedUsage;
  /** Embedded calls of the subagents without a transcript of their own among the inputs: the rest of the bill. */
  embedded: RecordedUsage & { agents: number };
  /** Embedded calls of subagents whose own transcript is among the inputs, counted there and not again. */
  inOwnTranscripts: { agents: number; calls: number };
  /** Transcripts whose source records usage only as session totals, and those totals summed (absent without any). */
  sessionTotals?: RecordedUsage & { transcripts: number };
}

const add = (into: RecordedUsage, from: RecordedUsage) => {
  into.calls += from.calls;
  into.input += from.input;
  into.uncachedInput += from.uncachedInput;
  into.cacheCreation += from.cacheCreation;
  into.cacheRead += from.cacheRead;
  into.output += from.output;
  into.firstCallInput += from.firstCallInput;
  into.cacheCreation1h += from.cacheCreation1h;
};

/**
 * The recorded bill of an archive, transcript by transcript (`stats`): a subagent's embedded calls count once, in its
 * own transcript when that is among the inputs (wherever it comes), else beside the session that embedded them.
 */
export class ArchiveUsage {
  private readonly ids = new Set<string>();
  private readonly total = emptyRecordedUsage();
  private readonly embedded: { transcriptId?: string; usage: EmbeddedUsage }[] = [];
  private transcripts = 0;
  private totals: (RecordedUsage & { transcripts: number }) | undefined;

  /** Adds a transcript; returns its own usage and its embedded calls (absent when none). */
  add(transcript: Transcript): TranscriptUsage {
    this.ids.add(transcript.id);
    const recorded = recordedUsage(transcript);
    const embedded = embeddedUsage(transcript, UNRECORDED_MODEL);
    if (recorded) {
      this.transcripts++;
      add(this.total, recorded);
    }
    for (const usage of embedded) this.embedded.push({ transcriptId: usage.transcriptId, usage });
    const totals = recorded ? undefined : sessionTotalUsage(transcript);
    if (totals) {
      this.totals ??= { ...emptyRecordedUsage(), transcripts: 0 };
      this.totals.transcripts++;
      add(this.totals, totals);
    }
    return { ...(recorded ? { recorded } : {}), ...(embedded.length > 0 ? { embedded } : {}), ...(totals ? { sessionTotals: totals } : {}) };
  }

  /** Undefined when no transcript recorded usage or embedded calls. */
  result(): ArchiveUsageTotal | undefined {
    if (this.transcripts === 0 && this.embedded.length === 0 && !this.totals) return undefined;
    const embedded = { ...emptyRecordedUsage(), agents: 0 };
    const inOwnTranscripts = { agents: 0, calls: 0 };
    for (const e of this.embedded) {
      if (e.transcriptId !== undefined && this.ids.has(e.transcriptId)) {
        inOwnTranscripts.agents++;
        inOwnTranscripts.calls += e.usage.calls;
      } else {
        embedded.agents++;
        add(embedded, e.usage);
      }
    }
    return {
      transcripts: this.transcripts,
      recorded: { ...this.total },
      embedded,
      inOwnTranscripts,
      ...(this.totals ? { sessionTotals: { ...this.totals } } : {}),
    };
  }
}

/** One line of a session's recorded totals: input (cache reads and writes), output, and that no call is recorded one by one. */
export function totalsLine(u: RecordedUsage): string {
  return `${int(u.input)} input tokens (${int(u.cacheRead)} cache reads, ${int(u.cacheCreation)} cache writes, ${int(u.uncachedInput)} uncached), ${int(u.output)} output, as session totals: the calls are not recorded one by one`;
}

/** One line of tokens: calls, input (cache reads and writes), output. */
export function usageLine(u: RecordedUsage): string {
  return `${int(u.calls)} calls, ${int(u.input)} input tokens (${int(u.cacheRead)} cache reads, ${int(u.cacheCreation)} cache writes, ${int(u.uncachedInput)} uncached), ${int(u.output)} output`;
}
