import { type MatchOptions, isRetained } from './matching.js';
import type { ModelView } from './model-view.js';
import { PROBE_KINDS, type Probe, type ProbeKind } from './probes.js';

/** How many probes there were and how many the compacted transcript kept. */
export interface Tally {
  probes: number;
  retained: number;
}

/** Tallies of one scoring, by kind and over all probes, plus the sub-groups the report shows on their own. */
export interface ProbeScore {
  byKind: Record<ProbeKind, Tally>;
  overall: Tally;
  /** Commands with at least one failed run. */
  failedCommands: Tally;
  /** Errors no later step resolved. */
  unresolvedErrors: Tally;
  /** The last user request, verbatim. */
  lastRequest: Tally;
}

export function emptyScore(): ProbeScore {
  const byKind = Object.fromEntries(PROBE_KINDS.map((k) => [k, { probes: 0, retained: 0 }])) as Record<ProbeKind, Tally>;
  return {
    byKind,
    overall: { probes: 0, retained: 0 },
    failedCommands: { probes: 0, retained: 0 },
    unresolvedErrors: { probes: 0, retained: 0 },
    lastRequest: { probes: 0, retained: 0 },
  };
}

function bump(t: Tally, kept: boolean): void {
  t.probes++;
  if (kept) t.retained++;
}

interface Scored {
  score: ProbeScore;
  /** The probes the view lost, in probe order. */
  lost: Probe[];
}

export function scoreProbes(probes: readonly Probe[], view: ModelView, options: MatchOptions = {}): Scored {
  const score = emptyScore();
  const lost: Probe[] = [];
  for (const probe of probes) {
    const kept = isRetained(probe, view, options);
    if (!kept) lost.push(probe);
    bump(score.byKind[probe.kind], kept);
    bump(score.overall, kept);
    if (probe.kind === 'command' && probe.failed) bump(score.failedCommands, kept);
    if (probe.kind === 'error' && !probe.resolved) bump(score.unresolvedErrors, kept);
    if (probe.kind === 'intent' && probe.match === 'verbatim') bump(score.lastRequest, kept);
  }
  return { score, lost };
}

function addTally(into: Tally, from: Tally): void {
  into.probes += from.probes;
  into.retained += from.retained;
}

export function addScore(into: ProbeScore, from: ProbeScore): ProbeScore {
  for (const k of PROBE_KINDS) addTally(into.byKind[k], from.byKind[k]);
  addTally(into.overall, from.overall);
  addTally(into.failedCommands, from.failedCommands);
  addTally(into.unresolvedErrors, from.unresolvedErrors);
  addTally(into.lastRequest, from.lastRequest);
  return into;
}

/** retained / probes, or null when there was nothing to retain (never NaN). */
export function recall(t: Tally): number | null {
  return t.probes === 0 ? null : t.retained / t.probes;
}
