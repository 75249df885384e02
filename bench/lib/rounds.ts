/** How many rounds the variants of an archive run in. */
export interface Rounds {
  /** Every variant. */
  all: number;
  /** The variants a ratio pairs (at least `all`). */
  paired: number;
}

/** The variants of one archive, in the table's order, and those whose ratios are read round by round. */
export interface RoundPlan<V> {
  variants: readonly V[];
  /**
   * Groups of variants (each one of `variants`) a ratio pairs round by round: a group runs back to back, in every
   * paired round, so round i of a ratio's two sides ran one right after the other.
   */
  paired: readonly (readonly V[])[];
}

/**
 * The variants each round runs, in order: the paired groups, then the other variants while there are `all` rounds.
 * Odd rounds run in the reverse order, so neither side of a pair always runs first (after a given run, on a warmer
 * core). Each variant's runs are its first rounds: round i of one variant and round i of another ran in the same round.
 */
export function roundSchedule<V>(plan: RoundPlan<V>, rounds: Rounds): V[][] {
  const paired = plan.paired.flat();
  for (const v of paired) if (!plan.variants.includes(v)) throw new Error('roundSchedule: a paired variant is not one of the variants of the plan');
  const rest = plan.variants.filter((v) => !paired.includes(v));
  const count = paired.length > 0 ? Math.max(rounds.all, rounds.paired) : rounds.all;
  const schedule: V[][] = [];
  for (let i = 0; i < count; i++) {
    const round = [...paired, ...(i < rounds.all ? rest : [])];
    schedule.push(i % 2 === 1 ? round.reverse() : round);
  }
  return schedule;
}
