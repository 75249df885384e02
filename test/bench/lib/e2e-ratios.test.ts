import { describe, expect, it } from 'vitest';
import { e2eRatios } from '../../../bench/lib/e2e-ratios.js';
import type { E2eRow } from '../../../bench/lib/e2e-row.js';

const HEURISTIC = 'tcompact run, auto, heuristic, --workers 2';
const JSON_A = 'baseline (a): readline + JSON.parse + JSON.stringify, 1 core';

/** A row as measureArchive writes it, from its CPU ms per round (wall = CPU / 2). */
function row(variant: string, cpuMs: number[]): E2eRow {
  return { variant, wallMs: null, mbPerSec: null, peakRssMB: null, byRound: { wallMs: cpuMs.map((ms) => ms / 2), cpuMs } };
}

describe('e2eRatios (100 MB archive)', () => {
  // Round 2 ran under load: every run of that round took longer.
  const rows = [row(JSON_A, [2000, 3000, 2100]), row(HEURISTIC, [4400, 6300, 4000]), row(`${HEURISTIC}, --no-refs`, [3900, 5800, 3700])];
  const r = e2eRatios(rows, 100);

  it('takes a CPU ratio round by round: the median and min-max of per-round ratios', () => {
    expect(r.cpuRatioAtMost('heuristic / (a)', 'heuristic, --workers 2', 'baseline (a)', 2)).toEqual({
      name: 'heuristic / (a)',
      value: 2.1,
      spread: { median: 2.1, min: 1.9047619047619047, max: 2.2, runs: 3 },
      target: '<= 2',
      met: false,
    });
  });

  it('takes the side store as the per-round difference of the runs with and without refs', () => {
    const side = r.refsCost('side store', 'heuristic, --workers 2', 5);
    expect(side.value).toBe(5);
    expect(side.spread).toEqual({ median: 5, min: 3, max: 5, runs: 3 });
    expect(side).toMatchObject({ unit: ' ms/MB', target: '<= 5', met: true });
  });

  it('takes a speed ratio from the walls of the same rounds', () => {
    const speed = r.ratio('heuristic / (a), wall', r.speed('heuristic, --workers 2'), r.speed('baseline (a)'), 1);
    // Per round, (a)'s wall over the heuristic run's: 2000/4400, 3000/6300, 2100/4000.
    expect(speed).toMatchObject({ value: 3000 / 6300, target: '>= 1', met: false });
    expect(speed.spread).toEqual({ median: 3000 / 6300, min: 2000 / 4400, max: 2100 / 4000, runs: 3 });
  });

  it('takes off each row its own start, the median of its runs on the 10 KB session', () => {
    const start = [row(HEURISTIC, [900, 1000, 1100]), row(JSON_A, [40, 50, 45])];
    const alone = r.cpuLessStart('heuristic less start', 'heuristic, --workers 2', start);
    expect(alone).toMatchObject({ value: 44 - 10, unit: ' ms/MB', spread: { min: 40 - 10, max: 63 - 10, runs: 3 } });
    const against = r.cpuRatioLessStart('heuristic / (a), less starts', 'heuristic, --workers 2', 'baseline (a)', start);
    // Per round (44 - 10) / (20 - 0.45), (63 - 10) / (30 - 0.45), (40 - 10) / (21 - 0.45).
    expect(against.value).toBeCloseTo(34 / 19.55, 10);
    expect(against.spread?.min).toBeCloseTo(30 / 20.55, 10);
    expect(against.spread?.max).toBeCloseTo(53 / 29.55, 10);
    expect(against.spread?.runs).toBe(3);
  });

  it('gives no value where a side has no CPU figure', () => {
    const noTime = [row(JSON_A, [2000]), { ...row(HEURISTIC, [4000]), byRound: { wallMs: [2000], cpuMs: [null] } }];
    expect(e2eRatios(noTime, 100).cpuRatioAtMost('x', 'heuristic, --workers 2', 'baseline (a)', 2)).toEqual({
      name: 'x',
      value: null,
      target: '<= 2',
      met: null,
    });
  });
});
