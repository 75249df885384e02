import { describe, expect, it } from 'vitest';
import { NO_VALUE, change, int, pct, percent, ratio, retained, signedChange, usd, usdFine, usdShort } from '../../src/report/format.js';

describe('report formatters', () => {
  it('writes the no-value mark as an en dash', () => {
    expect(NO_VALUE).toBe('–');
  });

  it('rounds a count and groups its thousands', () => {
    expect(int(1234567.6)).toBe('1,234,568');
    expect(int(0)).toBe('0');
  });

  it("groups a count as toLocaleString('en-US') does, signs, zeros and values past 2^53 alike", () => {
    const values = [0, -0, 0.4, -0.4, 5, -5, 999, 1000, -1000, 999999.5, 1e6, -123456789, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53 + 2, 1e21, -1e22];
    for (let n = 1; n < 1e16; n *= 7) values.push(n + 0.3, -n - 0.7);
    for (const n of values) expect([n, int(n)]).toEqual([n, Math.round(n).toLocaleString('en-US')]);
    expect([int(NaN), int(Infinity)]).toEqual(['NaN', '∞']);
  });

  it('writes a share with one decimal, and the no-value mark for null', () => {
    expect(pct(0.4235)).toBe('42.4%');
    expect(pct(1)).toBe('100.0%');
    expect(pct(null)).toBe(NO_VALUE);
  });

  it('writes a part of a whole as a share, 0 of 0 as 0.0%', () => {
    expect(percent(300, 1000)).toBe('30.0%');
    expect(percent(0, 0)).toBe('0.0%');
  });

  it('signs a change, and drops the sign of one that rounds to nothing', () => {
    expect(change(-0.443)).toBe('-44.3%');
    expect(change(0.02)).toBe('+2.0%');
    expect(change(-0.0001)).toBe('0.0%');
    expect(change(0)).toBe('0.0%');
  });

  it('signs a signed change even where it rounds to nothing', () => {
    expect(signedChange(0)).toBe('+0.0%');
    expect(signedChange(-0.0001)).toBe('-0.0%');
    expect(signedChange(0.25)).toBe('+25.0%');
  });

  it('writes dollars to the cent, short dollars whole from $100, fine dollars to a hundredth of a cent', () => {
    expect(usd(1234.567)).toBe('$1234.57');
    expect(usd(-0.724)).toBe('-$0.72');
    expect(usd(-0.001)).toBe('$0.00');
    expect(usdShort(99.5)).toBe('$99.50');
    expect(usdShort(100)).toBe('$100');
    expect(usdShort(1234.56)).toBe('$1235');
    expect(usdFine(0.01234)).toBe('$0.0123');
  });

  it('writes a ratio with two decimals, and the no-value mark for null', () => {
    expect(ratio(3.254)).toBe('3.25x');
    expect(ratio(null)).toBe(NO_VALUE);
  });

  it('writes probes retained as a share with the counts, and the no-value mark when there was none', () => {
    expect(retained({ probes: 8, retained: 7 })).toBe('87.5% (7/8)');
    expect(retained({ probes: 0, retained: 0 })).toBe(NO_VALUE);
  });
});
