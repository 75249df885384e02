import type { Transcript } from '../model/transcript.js';
import { finishCompaction } from '../refs/recipe.js';
import { type PipelineStep, type RunResult, runSteps } from './runner.js';
import type { StrategyContext } from './types.js';

export interface CompactResult extends RunResult {
  /** Ref of the restore recipe added to `metadata.tcompact.restore`; undefined when nothing changed or refs are off. */
  restore?: string;
}

/**
 * Compacts one transcript: runs the steps and, when refs are on and anything changed, stores a restore recipe so that
 * `restoreTranscript` gives back the input exactly. When nothing changed the input itself is returned, so compacting an
 * already compacted archive is byte-identical; when something changed on top of an earlier compaction, the new recipe
 * restores the earlier compacted transcript, whose own recipe restores the one before (layers).
 */
export function compactTranscript(input: Transcript, steps: readonly PipelineStep[], ctx: StrategyContext): CompactResult {
  ctx.refs?.enterLayer(input);
  const run = runSteps(input, steps, ctx);
  return { ...run, ...finishCompaction(input, run.transcript, ctx.refs) };
}
