import type { Spread } from './spread.js';

/** 3 significant figures, without exponent notation. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (Number.isInteger(n) || abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  if (abs === 0) return '0';
  return n.toPrecision(2);
}

/** "median (min–max)", or the median alone for one run; `unit` follows each figure. */
export function spreadText(s: Spread, unit = ''): string {
  const figure = (n: number) => `${formatNumber(n)}${unit}`;
  return s.runs > 1 ? `${figure(s.median)} (${figure(s.min)}–${figure(s.max)})` : figure(s.median);
}
