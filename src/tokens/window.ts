/** Fractions of the context window at which a transcript changes status. Ascending. */
interface WindowThresholds {
  /** @default 0.8 */
  warning: number;
  /** @default 0.9 */
  compaction: number;
  /** @default 0.98 */
  hardLimit: number;
}

export const DEFAULT_THRESHOLDS: Readonly<WindowThresholds> = { warning: 0.8, compaction: 0.9, hardLimit: 0.98 };
export const DEFAULT_WINDOW = 200_000;

export type WindowStatus = 'ok' | 'warning' | 'over_compaction_threshold' | 'over_hard_limit';

export function windowStatus(tokens: number, window: number, t: WindowThresholds = DEFAULT_THRESHOLDS): WindowStatus {
  const share = window > 0 ? tokens / window : Infinity;
  if (share >= t.hardLimit) return 'over_hard_limit';
  if (share >= t.compaction) return 'over_compaction_threshold';
  if (share >= t.warning) return 'warning';
  return 'ok';
}
