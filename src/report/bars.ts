import { type Breakdown, CATEGORIES, totalOf } from '../tokens/breakdown.js';
import { percent } from './format.js';

// The commands that print a breakdown take its share formatter from here too; it is written in format.ts.
export { percent };

const BAR_WIDTH = 30;

export function bar(share: number, width = BAR_WIDTH): string {
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
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
