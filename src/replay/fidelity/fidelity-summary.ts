import { NO_VALUE, change } from '../../report/format.js';
import { type FidelityPair, SESSION_WITHIN, type SessionFidelity, pair } from './session-fidelity.js';

/** The fidelity of an archive's replay: its sessions with recorded usage summed (see session-fidelity.ts). */
export interface FidelitySummary {
  /** The policy whose replay is held against the record. */
  policy: string;
  sessions: number;
  input: FidelityPair;
  inputCost: FidelityPair;
  cacheWrites: FidelityPair;
  /** Sessions whose replayed input is within ±5% of the recorded input. */
  withinInput: number;
  /** Sessions with a call off by more than 10% of its recorded prompt. */
  departing: number;
  /** Sessions whose billed unlogged tokens pass 10% of their recorded input. */
  flagged: number;
  /** Calls billed for replies no model produced. */
  syntheticCalls: number;
}

/** The sessions' fidelity summed; undefined without any. */
export function fidelitySummary(sessions: readonly SessionFidelity[]): FidelitySummary | undefined {
  if (sessions.length === 0) return undefined;
  const sum = (f: (s: SessionFidelity) => FidelityPair) =>
    pair(
      sessions.reduce((n, s) => n + f(s).recorded, 0),
      sessions.reduce((n, s) => n + f(s).replayed, 0),
    );
  return {
    policy: sessions[0].policy,
    sessions: sessions.length,
    input: sum((s) => s.input),
    inputCost: sum((s) => s.inputCost),
    cacheWrites: sum((s) => s.cacheWrites),
    withinInput: sessions.filter((s) => s.input.offBy !== null && Math.abs(s.input.offBy) <= SESSION_WITHIN).length,
    departing: sessions.filter((s) => s.departure !== undefined).length,
    flagged: sessions.filter((s) => s.unloggedFlag).length,
    syntheticCalls: sessions.reduce((n, s) => n + s.syntheticCalls, 0),
  };
}

/** A pair's departure as the reports show it ("+2.1%"; NO_VALUE when nothing was recorded). */
export const offByText = (p: FidelityPair): string => (p.offBy === null ? NO_VALUE : change(p.offBy));

/** The summary in one sentence, the same in every report (plain text: Markdown and HTML show it as it is). */
export function fidelityLine(s: FidelitySummary): string {
  return (
    `The '${s.policy}' replay against the record of ${s.sessions} sessions: input ${offByText(s.input)}, ` +
    `input-side cost with caching ${offByText(s.inputCost)}, cache writes ${offByText(s.cacheWrites)}; ` +
    `${s.withinInput} of ${s.sessions} sessions within ±5% of their recorded input, ${s.departing} with a call off by more than 10%, ` +
    `${s.flagged} flagged (unlogged content above 10% of input); ${s.syntheticCalls} calls billed for synthetic replies.`
  );
}
