import { describe, expect, it } from 'vitest';
import { type FrontierRow, againstBound } from '../../src/tune/frontier.js';

const row = (floor: number, bound: number, eachBound: number): FrontierRow => ({
  floor,
  found: { cost: eachBound + 1, recall: Math.min(1, floor + 0.01) },
  bound,
  gap: (eachBound + 1) / bound,
  eachBound,
  feasible: 3,
  transcripts: 3,
});
const rows = [row(0, 10, 10), row(0.8, 12, 13), row(0.9, 13, 15), row(0.95, 14, 16), row(0.99, 15, 18)];

describe("a setting's distance from the frontier's bounds", () => {
  it('takes the archive bound at its recall over the archive, and the bound with each transcript held at its lowest recall in one', () => {
    // Kept 97% over the archive, but only 85% in its worst transcript: the each-transcript bound is the 80% one.
    expect(againstBound(20, 0.97, rows, 0.85)).toEqual({ floor: 0.95, bound: 14, times: 20 / 14, each: { floor: 0.8, bound: 13, times: 20 / 13 } });
    // Every transcript at 100%: both at the top floor.
    expect(againstBound(20, 1, rows, 1)).toEqual({ floor: 0.99, bound: 15, times: 20 / 15, each: { floor: 0.99, bound: 18, times: 20 / 18 } });
  });

  it('gives no each-transcript distance below the first floor, and nothing below floor 0', () => {
    expect(againstBound(20, 0.92, rows, 0.5)).toEqual({ floor: 0.9, bound: 13, times: 20 / 13 });
    expect(againstBound(20, 0.92, rows)).toEqual({ floor: 0.9, bound: 13, times: 20 / 13 });
    expect(againstBound(20, 0.5, rows.slice(1), 0.5)).toBeUndefined();
  });
});
