import { describe, expect, it } from 'vitest';
import { rangeCell } from '../../../bench/lib/e2e-row.js';
import { ratioTable, renderTable, type BenchFile } from '../../../bench/lib/results.js';

describe('rendering a median with its spread', () => {
  it('writes a ratio measured round by round with its min-max and how many runs', () => {
    const file = {
      name: 'end-to-end',
      mode: 'full',
      ratios: [
        { name: 'side store', value: 4.2, unit: ' ms/MB', target: '<= 5', met: true, spread: { median: 4.2, min: 3.1, max: 6.25, runs: 5 } },
        { name: 'one run', value: 2.11, target: '<= 2', met: false, spread: { median: 2.11, min: 2.11, max: 2.11, runs: 1 } },
        { name: 'no spread', value: 0.5 },
      ],
    } as unknown as BenchFile;
    expect(
      renderTable(ratioTable([file]))
        .split('\n')
        .slice(4),
    ).toEqual([
      '| side store | 4.20 ms/MB (3.10–6.25 over 5 runs) | <= 5 | yes | end-to-end (full) |',
      '| one run | 2.11x | <= 2 | no | end-to-end (full) |',
      '| no spread | 0.50x |  |  | end-to-end (full) |',
    ]);
  });

  it('writes a row figure as its median and min-max, scaled, or alone after one round', () => {
    expect(rangeCell(7310, [7100, 7520], 5, 1 / 1000)).toBe('7.31 (7.10–7.52)');
    expect(rangeCell(7310, [7310, 7310], 1, 1 / 1000)).toBeCloseTo(7.31, 10);
    expect(rangeCell(null, undefined, undefined)).toBeNull();
  });
});
