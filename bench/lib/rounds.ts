/** How many rounds the variants of an archive run in. */
export interface Rounds {
  /** Every variant. */
  all: number;
  /** The variants a ratio pairs (at least `all`). */
  paired: number;
  /** The variants in {@link RoundPlan.differences} (at least `paired`); `paired` when not given. */
  differences?: number;
}

/** The variants of one archive, in the table's order, and those whose ratios are read round by round. */
export interface RoundPlan<V> {
  variants: readonly V[];
  /**
   * Groups of variants (each one of `variants`) a ratio pairs round by round: a group runs back to back, in every
   * paired round, so round i of a ratio's two sides ran one right after the other.
   */
  paired: readonly (readonly V[])[];
  /**
   * Paired variants whose figure is the difference of two runs (the side store: a few ms per MB out of sixty, with the
   * noise of both runs): they run on, back to back, for `rounds.differences` rounds, the others of their groups stopping
   * at `rounds.paired`. A ratio of one of them with another row pairs the rounds both ran.
   */
  differences?: readonly V[];
}

/**
 * The variants each round runs, in order: the paired groups, then the other variants while there are `all` rounds.
 * Odd rounds run in the reverse order, so neither side of a pair always runs first (after a given run, on a warmer
 * core). Each variant's runs are its first rounds: round i of one variant and round i of another ran in the same round.
 */
export function roundSchedule<V>(plan: RoundPlan<V>, rounds: Rounds): V[][] {
  const paired = plan.paired.flat();
  for (const v of paired) if (!plan.variants.includes(v)) throw new Error('roundSchedule: a paired variant is not one of the variants of the plan');
  const differences = plan.differences ?? [];
  for (const v of differences) if (!paired.includes(v)) throw new Error('roundSchedule: a variant of a difference is not a paired variant');
  const rest = plan.variants.filter((v) => !paired.includes(v));
  const pairedRounds = paired.length > 0 ? rounds.paired : 0;
  const differenceRounds = differences.length > 0 ? Math.max(rounds.differences ?? rounds.paired, pairedRounds) : 0;
  const count = Math.max(rounds.all, pairedRounds, differenceRounds);
  const schedule: V[][] = [];
  for (let i = 0; i < count; i++) {
    const groups = i < pairedRounds ? paired : i < differenceRounds ? paired.filter((v) => differences.includes(v)) : [];
    const round = [...groups, ...(i < rounds.all ? rest : [])];
    schedule.push(i % 2 === 1 ? round.reverse() : round);
  }
  return schedule;
}
