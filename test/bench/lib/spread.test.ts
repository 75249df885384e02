import { describe, expect, it } from 'vitest';
import { median, pairedSpread, spreadOf } from '../../../bench/lib/spread.js';

describe('spreadOf', () => {
  it('gives the median and the lowest and highest round', () => {
    expect(spreadOf([8.5, 6.5, 7, 9, 6.9])).toEqual({ median: 7, min: 6.5, max: 9, runs: 5 });
    expect(spreadOf([])).toBeNull();
  });

  it('takes the lower middle of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2);
  });
});

describe('pairedSpread', () => {
  it('combines round i with round i, not the medians of each side', () => {
    // Each round's load moves both runs of the pair: the per-round differences stay at 5 where the medians differ by 10.
    const withRefs = [40, 60, 50];
    const noRefs = [35, 55, 45];
    expect(pairedSpread(withRefs, noRefs, (a, b) => a - b)).toEqual({ median: 5, min: 5, max: 5, runs: 3 });
    expect(pairedSpread([40, 60, 30], [35, 55, 45], (a, b) => a - b)).toEqual({ median: 5, min: -15, max: 5, runs: 3 });
  });

  it('pairs only the rounds both sides have a figure for', () => {
    expect(pairedSpread([2, null, 6, 8, 10], [1, 1, 2], (a, b) => a / b)).toEqual({ median: 2, min: 2, max: 3, runs: 2 });
    expect(pairedSpread([null], [1], (a, b) => a / b)).toBeNull();
  });
});
