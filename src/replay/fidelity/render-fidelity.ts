import { NO_VALUE, int, pct, usd } from '../../report/format.js';
import { markdownTable } from '../../report/markdown-table.js';
import type { TranscriptSimulation } from '../transcript-replay.js';
import { DEPARTURE_LABELS } from './departure-cause.js';
import { type FidelitySummary, fidelityLine, offByText } from './fidelity-summary.js';
import type { SessionFidelity } from './session-fidelity.js';

/** How the fidelity table is read: its columns, where the causes come from, and its thresholds. */
export const FIDELITY_NOTE =
  "Each session with recorded usage, its 'source' replay (its own compactions replayed where it made them; their " +
  'calls left out, as sources record them apart) held against the record. Input: uncached input, cache writes and ' +
  "cache reads summed over the calls. Input cost: the same at each model's prices with caching; the output is left " +
  "out, as Claude Code records a reply's usage mid-stream. First call off: the first call whose replayed prompt is more " +
  'than 10% from its recorded one, and what the record shows since the call before it: a synthetic reply (no model ' +
  'produced it), unlogged content (the token scale placed tokens the log lacks there, a message holds content the log ' +
  "shows only in part, or the replay carries such tokens where the record's input fell), the source's own compaction, a " +
  'branch switch, a resume rebuild, the first call without the unrecorded system prompt; else an unexplained jump. ' +
  'Unlogged: the unlogged tokens the replay billed over the recorded input; a session is flagged where they pass 10%. ' +
  "Corrected: what the reading and the replay corrected of the session's log (images counted as billed, replies a " +
  "subagent's file logs again counted in the session, a sidechain logged inline read apart, old tool results the " +
  'client cleared without logging it, read from the fall of the recorded prompt). Estimated: what the ' +
  "replay takes from the record rather than the log: after each of Claude Code's compactions, the step between the " +
  "first call's recorded prompt and the replayed one (the files, plan, skills and tool announcements it re-sends " +
  'unlogged), carried with the summary until the next compaction.';

/** A session's calls, recorded and replayed; a session whose source records only totals says its calls are not recorded one by one. */
export const callsText = (f: SessionFidelity): string =>
  !f.perCall
    ? `not recorded one by one (${int(f.calls.replayed)} replayed; held against the session's totals)`
    : f.calls.recorded === f.calls.replayed
      ? int(f.calls.recorded)
      : `${int(f.calls.recorded)} (${int(f.calls.replayed)} replayed)`;

/** What was there at a session's first departing call, as the reports name it. */
export const causesText = (f: SessionFidelity): string => (f.departure ? f.departure.causes.map((c) => DEPARTURE_LABELS[c]).join(', ') : NO_VALUE);

/** A session's unlogged share, with its flag. */
export const unloggedText = (f: SessionFidelity): string => `${pct(f.unlogged.share)}${f.unloggedFlag ? ' (flagged)' : ''}`;

/** simulate.md's fidelity section: the summary line, how to read the table, and a row per session with recorded usage. */
export function fidelitySection(summary: FidelitySummary | undefined, perTranscript: readonly TranscriptSimulation[]): string[] {
  if (!summary) return [];
  const rows = perTranscript.flatMap((t) => (t.fidelity ? [{ t, f: t.fidelity }] : []));
  return [
    '',
    '## The replay against the record',
    '',
    fidelityLine(summary),
    '',
    FIDELITY_NOTE,
    '',
    ...markdownTable(
      [
        'session',
        'calls',
        'input recorded',
        'input replayed',
        'input off',
        'writes recorded',
        'writes replayed',
        'writes off',
        'input cost recorded',
        'input cost replayed',
        'cost off',
        'unlogged',
        'first call off',
        'its prompt recorded',
        'its prompt replayed',
        'what was there',
        'corrected',
        'estimated',
      ],
      rows.map(({ t, f }) => [
        t.id,
        callsText(f),
        int(f.input.recorded),
        int(f.input.replayed),
        offByText(f.input),
        int(f.cacheWrites.recorded),
        int(f.cacheWrites.replayed),
        offByText(f.cacheWrites),
        usd(f.inputCost.recorded),
        usd(f.inputCost.replayed),
        offByText(f.inputCost),
        unloggedText(f),
        f.departure ? int(f.departure.call) : NO_VALUE,
        f.departure ? int(f.departure.recorded) : NO_VALUE,
        f.departure ? int(f.departure.replayed) : NO_VALUE,
        causesText(f),
        f.corrected.length > 0 ? f.corrected.join(', ') : NO_VALUE,
        f.estimated.length > 0 ? f.estimated.join(', ') : NO_VALUE,
      ]),
      'lrrrrrrrrrrrrrrlll',
    ),
  ];
}
