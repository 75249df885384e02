import { describe, expect, it } from 'vitest';
import { dollarsPerMillion, fraction, integer, nonNegative, oneOf, positive, recordedOr, seconds } from '../../src/cli/flag-values.js';
import type { FlagParser } from '../../src/cli/flags.js';

const at = { command: 'x', flag: 'n', given: () => false };

function read<T>(parse: FlagParser<T>, raw: string): T | string {
  try {
    return parse(raw, at);
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

describe('flag values', () => {
  it.each([
    ['3', 3, integer(1, 9)],
    ['0', 'E_USAGE: --n must be an integer from 1 to 9, got "0"', integer(1, 9)],
    ['2.5', 'E_USAGE: --n must be an integer from 1 to 9, got "2.5"', integer(1, 9)],
    ['0', 0, nonNegative],
    [' ', 'E_USAGE: --n must be a number >= 0, got " "', nonNegative],
    ['0', 'E_USAGE: --n must be a number > 0, got "0"', positive],
    ['1e3', 1000, positive],
    ['0.95', 0.95, fraction],
    ['1.01', 'E_USAGE: --n must be between 0 and 1, got "1.01"', fraction],
    ['abc', 'E_USAGE: --n must be a number >= 0, got "abc"', fraction],
    ['Infinity', 'E_USAGE: --n must be a number of seconds > 0, got "Infinity"', seconds],
    ['-0.5', 'E_USAGE: --n must be a number of US dollars per million tokens, got "-0.5"', dollarsPerMillion],
    ['b', 'b', oneOf(['a', 'b'])],
    ['B', 'E_USAGE: --n must be one of a, b, got "B"', oneOf(['a', 'b'])],
    ['recorded', 'recorded', recordedOr(positive)],
    ['1.4', 1.4, recordedOr(positive)],
    ['measured', 'E_USAGE: --n must be a number > 0, got "measured"', recordedOr(positive)],
  ] as [string, unknown, FlagParser<unknown>][])('"%s" reads as %j', (raw, expected, parse) => {
    expect(read(parse, raw)).toEqual(expected);
  });
});
