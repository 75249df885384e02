import type { E2eRow } from './e2e-row.js';
import type { Ratio } from './results.js';
import { pairedSpread, spreadOf, type Spread } from './spread.js';

/** One figure per round of a row, in round order; null where it is unknown (no GNU time). */
type PerRound = readonly (number | null)[];

/** A ratio whose value is the median of its per-round values, with their min-max. */
function fromSpread(name: string, spread: Spread | null, unit?: string): Ratio {
  const ratio: Ratio = { name, value: spread === null ? null : spread.median };
  if (unit !== undefined) ratio.unit = unit;
  if (spread !== null) ratio.spread = spread;
  return ratio;
}

function atMost(ratio: Ratio, max: number): Ratio {
  return { ...ratio, target: `<= ${max}`, met: ratio.value === null ? null : ratio.value <= max };
}

/**
 * Ratio helpers over one archive's rows (`mb`: its input MB). Each ratio pairs round i of one row with round i of the
 * other (run in the same round, back to back when the plan pairs them) and reports the median of those per-round
 * values and their min-max, so its spread is that of the pairs rather than of two medians taken apart.
 */
export function e2eRatios(rows: readonly E2eRow[], mb: number) {
  // A row whose name ends with `name`, else the first that contains it (`heuristic, --workers 2` is not its --no-refs twin).
  const by = (name: string) => rows.find((r) => r.variant.endsWith(name)) ?? rows.find((r) => r.variant.includes(name));
  /** Input MB / wall seconds, per round. */
  const speed = (name: string): PerRound => by(name)?.byRound?.wallMs.map((ms) => mb / (ms / 1000)) ?? [];
  /** Input MB / seconds inside the tokenizer, per round (baselines (b) and (c)). */
  const tokenizerOnly = (name: string): PerRound => by(name)?.byRound?.countMs?.map((ms) => mb / (ms / 1000)) ?? [];
  const cpuPerMb = (name: string): PerRound => by(name)?.byRound?.cpuMs.map((ms) => (ms === null ? null : ms / mb)) ?? [];
  const known = (xs: PerRound) => xs.filter((x): x is number => x !== null);

  const ratio = (name: string, a: PerRound, b: PerRound, min?: number): Ratio => {
    const r = fromSpread(
      name,
      pairedSpread(a, b, (x, y) => x / y),
    );
    return min === undefined ? r : { ...r, target: `>= ${min}`, met: r.value === null ? null : r.value >= min };
  };
  /** CPU ms per MB of a row against a ceiling: the figure that holds when other jobs share the cores. */
  const cpuAtMost = (name: string, row: string, max: number): Ratio => atMost(fromSpread(name, spreadOf(known(cpuPerMb(row))), ' ms/MB'), max);
  /** CPU per MB of one row against another's, at most `max` times it. */
  const cpuRatioAtMost = (name: string, row: string, base: string, max: number): Ratio =>
    atMost(
      fromSpread(
        name,
        pairedSpread(cpuPerMb(row), cpuPerMb(base), (x, y) => x / y),
      ),
      max,
    );
  /** What the side store costs: per round, CPU per MB of the run with refs less the same round's run with `--no-refs`. */
  const refsCost = (name: string, row: string, max: number): Ratio =>
    atMost(
      fromSpread(
        name,
        pairedSpread(cpuPerMb(row), cpuPerMb(`${row}, --no-refs`), (x, y) => x - y),
        ' ms/MB',
      ),
      max,
    );
  /** Bytes of refs.jsonl per input byte. */
  const refsDisk = (name: string, row: string): Ratio => {
    const bytes = rows.find((r) => r.variant.endsWith(row))?.refsBytes;
    return { name, value: bytes === undefined ? null : bytes / (mb * 1e6) };
  };

  /**
   * A row's CPU per MB per round less what its start costs (its median CPU ms on a 10 KB session, `start`'s row of the
   * same name, spread over this archive's MB): the work that grows with the input.
   */
  const lessStart = (row: string, start: readonly E2eRow[]): PerRound => {
    const startRow = start.find((r) => r.variant === by(row)?.variant);
    const startCpu = spreadOf(known(startRow?.byRound?.cpuMs ?? []));
    return cpuPerMb(row).map((x) => (x === null || startCpu === null ? null : x - startCpu.median / mb));
  };
  /** CPU ms per MB of a row less its start. */
  const cpuLessStart = (name: string, row: string, start: readonly E2eRow[]): Ratio => fromSpread(name, spreadOf(known(lessStart(row, start))), ' ms/MB');
  /** CPU per MB of one row against another's, each less its own start. */
  const cpuRatioLessStart = (name: string, row: string, base: string, start: readonly E2eRow[]): Ratio =>
    fromSpread(
      name,
      pairedSpread(lessStart(row, start), lessStart(base, start), (x, y) => x / y),
    );
  return { speed, tokenizerOnly, ratio, cpuAtMost, cpuRatioAtMost, refsCost, refsDisk, cpuLessStart, cpuRatioLessStart };
}
