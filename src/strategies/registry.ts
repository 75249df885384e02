import type { Strategy } from './types.js';

/**
 * Every strategy by its CLI name. Each lives in its own file in this folder; `auto` is a preset of these (auto.ts).
 */
export const STRATEGIES: Readonly<Record<string, Strategy>> = {};

export function strategyNames(): string[] {
  return Object.keys(STRATEGIES);
}
