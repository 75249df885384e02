import { TcompactError } from '../errors.js';
import type { FlagAt, FlagParser } from './flags.js';

function _usage(message: string): never {
  throw new TcompactError('E_USAGE', message);
}

/** The value as given. */
export const text: FlagParser<string> = (raw) => raw;

/** An integer within [min, max]. */
export function integer(min = 0, max = Number.MAX_SAFE_INTEGER): FlagParser<number> {
  return (raw, { flag }) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) _usage(`--${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };
}

function _number(raw: string): number | undefined {
  const n = Number(raw);
  return raw.trim() === '' || !Number.isFinite(n) ? undefined : n;
}

/** A number of at least 0. */
export const nonNegative: FlagParser<number> = (raw, { flag }) => {
  const n = _number(raw);
  return n !== undefined && n >= 0 ? n : _usage(`--${flag} must be a number >= 0, got "${raw}"`);
};

/** A number above 0. */
export const positive: FlagParser<number> = (raw, { flag }) => {
  const n = _number(raw);
  return n !== undefined && n > 0 ? n : _usage(`--${flag} must be a number > 0, got "${raw}"`);
};

/** A number from 0 to 1. */
export const fraction: FlagParser<number> = (raw, at) => {
  const n = nonNegative(raw, at);
  return n <= 1 ? n : _usage(`--${at.flag} must be between 0 and 1, got "${raw}"`);
};

/** A number of seconds above 0. */
export const seconds: FlagParser<number> = (raw, { flag }) => {
  const n = _number(raw);
  return n !== undefined && n > 0 ? n : _usage(`--${flag} must be a number of seconds > 0, got "${raw}"`);
};

/** A price: US dollars per million tokens, at least 0. */
export const dollarsPerMillion: FlagParser<number> = (raw, { flag }) => {
  const n = _number(raw);
  return n !== undefined && n >= 0 ? n : _usage(`--${flag} must be a number of US dollars per million tokens, got "${raw}"`);
};

/** One of the names. */
export function oneOf<const N extends string>(names: readonly N[]): FlagParser<N> {
  const isName = (raw: string): raw is N => (names as readonly string[]).includes(raw);
  return (raw, { flag }) => (isName(raw) ? raw : _usage(`--${flag} must be one of ${names.join(', ')}, got "${raw}"`));
}

/** `recorded` (each transcript's own figure, from its recorded usage) or a value `parse` reads. */
export function recordedOr<T>(parse: FlagParser<T>): FlagParser<T | 'recorded'> {
  return (raw: string, at: FlagAt) => (raw === 'recorded' ? 'recorded' : parse(raw, at));
}
