import { type Breakdown, CATEGORIES, totalOf } from '../tokens/breakdown.js';

const BAR_WIDTH = 30;

export function bar(share: number, width = BAR_WIDTH): string {
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** Share as a percentage with one decimal; 0 of 0 is 0.0%, never NaN. */
export function percent(part: number, whole: number): string {
  return `${(whole > 0 ? (100 * part) / whole : 0).toFixed(1)}%`;
}

/** A context-window style breakdown: one line per non-empty category with its tokens, share and a bar. */
export function renderBreakdown(b: Readonly<Breakdown>): string[] {
  const total = totalOf(b);
  const width = Math.max(...CATEGORIES.map((c) => c.length));
  const lines: string[] = [];
  for (const c of CATEGORIES) {
    if (b[c] === 0) continue;
    lines.push(`  ${c.padEnd(width)} ${String(b[c]).padStart(10)}  ${percent(b[c], total).padStart(6)}  ${bar(total > 0 ? b[c] / total : 0)}`);
  }
  return lines;
}
