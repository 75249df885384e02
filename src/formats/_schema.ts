import type { FormatName } from './types.js';

/** One condition of a format's schema: what it asks for (said in an error), and the test. */
export type Rule<T> = readonly [what: string, holds: (value: T) => boolean];

/**
 * What a format's files look like, as detection checks it: rules in order, the first naming the format's own kind of
 * record (its record types, its header), the later ones what such a record must then hold.
 */
export interface Schema<T> {
  format: FormatName;
  rules: readonly Rule<T>[];
}

export function schema<T>(format: FormatName, ...rules: Rule<T>[]): Schema<T> {
  return { format, rules };
}

/** A schema checked on a value: it holds, or how many of its rules held before the one that failed. */
export type Verdict = { ok: true } | { ok: false; passed: number; failed: string };

export function check<T>(s: Schema<T>, value: T): Verdict {
  for (const [i, [what, holds]] of s.rules.entries()) if (!holds(value)) return { ok: false, passed: i, failed: what };
  return { ok: true };
}

/** A format that did not claim a file, and why: how far its schema got (`passed` of `of` rules) and what failed. */
export interface Miss {
  format: FormatName;
  passed: number;
  of: number;
  reason: string;
}

/** The miss of a schema whose check failed on a value: its kind of record but not what it must hold, or not its kind. */
export function missOf<T>(s: Schema<T>, verdict: Extract<Verdict, { ok: false }>): Miss {
  return {
    format: s.format,
    passed: verdict.passed,
    of: s.rules.length,
    reason: verdict.passed > 0 ? `${s.rules[0][0]}, but no ${verdict.failed}` : `not ${verdict.failed}`,
  };
}

/**
 * The E_FORMAT message's tail: every format tried, and the closest (the most of its rules held; the first in the table
 * on a tie) with what it lacked. No format is close when none held even its first rule.
 */
export function describeMisses(misses: readonly Miss[]): string {
  const tried = [...new Set(misses.map((m) => m.format))].join(', ');
  let best: Miss | undefined;
  for (const m of misses) if (m.passed > 0 && (best === undefined || m.passed / m.of > best.passed / best.of)) best = m;
  const closest = best ? `closest: ${best.format} (${best.reason})` : 'none came close (no format recognised its kind of record)';
  return `tried ${tried}; ${closest}`;
}
