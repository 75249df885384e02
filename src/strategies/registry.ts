import { checkpoint } from './checkpoint.js';
import { dedupTools } from './dedup-tools.js';
import { classifyTangents } from './llm/classify-tangents.js';
import { summarize } from './llm/summarize.js';
import { maskObservations } from './mask-observations.js';
import { pruneTools } from './prune-tools.js';
import { redactSecrets } from './redact-secrets.js';
import { sanitize } from './sanitize.js';
import { stripAttachments } from './strip-attachments.js';
import { stripReasoning } from './strip-reasoning.js';
import { stripToolResults } from './strip-tool-results.js';
import { truncate } from './truncate.js';
import type { AnyStrategy } from './types.js';

/**
 * Every strategy by its CLI name, each in its own file; `auto` is a preset of these (presets.ts). `summarize` and
 * `classify-tangents` are async: they need a model (`tcompact run --model`).
 */
export const STRATEGIES: Readonly<Record<string, AnyStrategy>> = {
  [sanitize.name]: sanitize,
  [redactSecrets.name]: redactSecrets,
  [stripReasoning.name]: stripReasoning,
  [maskObservations.name]: maskObservations,
  [stripToolResults.name]: stripToolResults,
  [dedupTools.name]: dedupTools,
  [stripAttachments.name]: stripAttachments,
  [pruneTools.name]: pruneTools,
  [checkpoint.name]: checkpoint,
  [truncate.name]: truncate,
  [summarize.name]: summarize,
  [classifyTangents.name]: classifyTangents,
};
