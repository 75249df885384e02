import { RECALL_FLOORS } from '../replay/policies/optimal/frontier.js';
import { OPTIMAL } from '../replay/policies/optimal/optimal-policy.js';
import type { PolicyTotals } from '../replay/simulation-report.js';

/** The policy names of the frontier's schedules, one per floor tune draws it at. */
export const FRONTIER_POLICIES: readonly string[] = RECALL_FLOORS.map((r) => `${OPTIMAL}@${r}`);

/** One floor of the frontier over the archive: the best schedule found there, replayed, and the bound, both with caching. */
export interface FrontierRow {
  floor: number;
  /** `optimal@floor`'s replay: its cost with caching and hindsight recall over the archive. */
  found: { cost: number; recall: number };
  /**
   * The least any schedule of `optimal`'s edits keeping `floor` of the facts needed again over the archive can cost
   * with caching: the Lagrangian bound on the planned input, plus what the found schedules' replay bills beyond their
   * planned input (the output, the same for every setting).
   */
  bound: number;
  /** found / bound. */
  gap: number;
  /**
   * The same with each transcript held to the floor on its own (the transcripts' own bounds summed): the bound of a
   * setting that keeps `floor` in every transcript, as `optimal@R`'s schedules do. At least `bound`.
   */
  eachBound: number;
  /** Transcripts where a schedule meeting the floor was found (of `transcripts`). */
  feasible: number;
  transcripts: number;
}

/** The frontier's rows from the first pass's totals: the recall-blind `optimal` at floor 0, then each `optimal@R`. */
export function frontierRows(totals: ReadonlyMap<string, PolicyTotals>, recallOf: (t: PolicyTotals) => number, transcripts: number): FrontierRow[] {
  const rows: FrontierRow[] = [];
  const blind = totals.get(OPTIMAL);
  if (blind) {
    const cost = blind.cost.withCache;
    rows.push({ floor: 0, found: { cost, recall: recallOf(blind) }, bound: cost, gap: 1, eachBound: cost, feasible: transcripts, transcripts });
  }
  for (const name of FRONTIER_POLICIES) {
    const t = totals.get(name);
    if (!t?.frontier) continue;
    const f = t.frontier;
    const cost = t.cost.withCache;
    const bound = cost - f.inputCost + f.bound;
    rows.push({
      floor: f.floor,
      found: { cost, recall: recallOf(t) },
      bound,
      gap: bound > 0 ? cost / bound : 1,
      eachBound: Math.max(bound, cost - f.inputCost + f.eachBound),
      feasible: f.feasible,
      transcripts: f.transcripts,
    });
  }
  // A schedule found at a higher floor meets the lower ones too: each floor keeps the cheapest found at or above it.
  for (let i = rows.length - 2; i >= 0; i--) {
    const above = rows[i + 1];
    if (above.found.cost < rows[i].found.cost) rows[i] = { ...rows[i], found: above.found, gap: rows[i].bound > 0 ? above.found.cost / rows[i].bound : 1 };
  }
  return rows;
}

/** A setting's cost over one bound of the frontier, at one floor. */
export interface BoundDistance {
  floor: number;
  bound: number;
  times: number;
}

/**
 * Where a setting stands against the frontier: the bound at the highest floor its recall over the archive reaches
 * (the bound only rises with the floor, so that is a bound at its own recall), and its cost over that bound; `each`:
 * the same against the bound with each transcript held to the floor, at the highest floor its lowest recall in one
 * transcript reaches (absent when that is floor 0, where both bounds are `optimal`'s cost).
 */
export function againstBound(
  cost: number,
  recall: number,
  rows: readonly FrontierRow[],
  lowestRecall = 0,
): (BoundDistance & { each?: BoundDistance }) | undefined {
  const at = (r: number) => [...rows].reverse().find((row) => r >= row.floor - 1e-12);
  const row = at(recall);
  if (!row) return undefined;
  const out = { floor: row.floor, bound: row.bound, times: row.bound > 0 ? cost / row.bound : 1 };
  const each = at(lowestRecall);
  if (!each || each.floor === 0) return out;
  return { ...out, each: { floor: each.floor, bound: each.eachBound, times: each.eachBound > 0 ? cost / each.eachBound : 1 } };
}
