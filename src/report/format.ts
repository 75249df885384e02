/** Number formatting for the eval and simulate tables: fixed locale, so files are byte-identical across machines. */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const pct = (share: number | null): string => (share === null ? '–' : `${(100 * share).toFixed(1)}%`);
/** A relative change: `-44.3%`, `+2.0%`, `0.0%`. */
export const change = (share: number): string => {
  const text = pct(Math.abs(share));
  return text === '0.0%' ? text : `${share < 0 ? '-' : '+'}${text}`;
};
export const usd = (n: number): string => `$${n.toFixed(2)}`;
export const ratio = (n: number | null): string => (n === null ? '–' : `${n.toFixed(2)}x`);

/** A GitHub-flavoured Markdown table; `align` is 'l' or 'r' per column. */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[], align: string): string {
  const sep = header.map((_, i) => (align[i] === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}
