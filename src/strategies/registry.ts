import { checkpoint } from './checkpoint.js';
import { dedupTools } from './dedup-tools.js';
import { maskObservations } from './mask-observations.js';
import { pruneTools } from './prune-tools.js';
import { sanitize } from './sanitize.js';
import { stripAttachments } from './strip-attachments.js';
import { stripReasoning } from './strip-reasoning.js';
import { stripToolResults } from './strip-tool-results.js';
import { truncate } from './truncate.js';
import type { Strategy } from './types.js';

/**
 * Every strategy by its CLI name. Each lives in its own file in this folder; `auto` is a preset of these (auto.ts).
 */
export const STRATEGIES: Readonly<Record<string, Strategy>> = {
  [sanitize.name]: sanitize,
  [stripReasoning.name]: stripReasoning,
  [maskObservations.name]: maskObservations,
  [stripToolResults.name]: stripToolResults,
  [dedupTools.name]: dedupTools,
  [stripAttachments.name]: stripAttachments,
  [pruneTools.name]: pruneTools,
  [checkpoint.name]: checkpoint,
  [truncate.name]: truncate,
};

export function strategyNames(): string[] {
  return Object.keys(STRATEGIES);
}
