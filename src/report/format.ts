/**
 * How every report writes its figures, in Markdown and on its HTML page alike. The locale is fixed, so files are
 * byte-identical across machines.
 */

/** What a cell shows when its figure has no value (no probes to score, nothing left to divide by, no price). */
export const NO_VALUE = '–';

/**
 * A count, rounded and grouped: `1,234,567`, as `toLocaleString('en-US')` writes it. Grouped by hand: the first
 * `toLocaleString` of a process loads ICU's locale data (about 50 ms of CPU), which every run would pay for its report.
 */
export const int = (n: number): string => {
  const rounded = Math.round(n);
  if (!Number.isSafeInteger(rounded)) return rounded.toLocaleString('en-US');
  const digits = String(Math.abs(rounded));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return rounded < 0 || Object.is(rounded, -0) ? `-${out}` : out;
};

/** A share as a percentage with one decimal: `42.3%`. */
export const pct = (share: number | null): string => (share === null ? NO_VALUE : `${(100 * share).toFixed(1)}%`);

/** `part` as a share of `whole`; 0 of 0 is `0.0%`, never NaN. */
export function percent(part: number, whole: number): string {
  return `${(whole > 0 ? (100 * part) / whole : 0).toFixed(1)}%`;
}

/** A relative change: `-44.3%`, `+2.0%`; `0.0%` when it rounds to nothing. */
export const change = (share: number): string => {
  const text = pct(Math.abs(share));
  return text === '0.0%' ? text : `${share < 0 ? '-' : '+'}${text}`;
};

/** A relative change whose sign is always written, even on what rounds to nothing: `+0.0%`, `-0.0%` (tune's costs against `none`). */
export const signedChange = (share: number): string => `${share >= 0 ? '+' : ''}${pct(share)}`;

/** Dollars to the cent: `$1234.56`. */
export const usd = (n: number): string => `${n < 0 && n.toFixed(2) !== '-0.00' ? '-' : ''}$${Math.abs(n).toFixed(2)}`;

/** Dollars to the cent below $100, whole dollars from $100 (`$99.50`, `$1235`): for narrow cells, headlines and tune's tables. */
export const usdShort = (n: number): string => `$${n.toFixed(n >= 100 ? 0 : 2)}`;

/** Dollars to a hundredth of a cent: `$0.0123`, for the LLM steps' costs, often below a cent. */
export const usdFine = (n: number): string => `$${n.toFixed(4)}`;

/** A ratio with two decimals: `3.25x`. */
export const ratio = (n: number | null): string => (n === null ? NO_VALUE : `${n.toFixed(2)}x`);

/** Probes retained out of probes: `87.5% (7/8)`; NO_VALUE when there was none. */
export const retained = (t: { probes: number; retained: number }): string =>
  t.probes === 0 ? NO_VALUE : `${pct(t.retained / t.probes)} (${t.retained}/${t.probes})`;
