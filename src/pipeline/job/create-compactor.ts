import type { Transcript } from '../../model/transcript.js';
import { RefSink } from '../../refs/ref-store.js';
import { buildSyncSteps } from '../../strategies/build-steps.js';
import { type CompactConfig, type CompactConfigInput, parseCompactConfig } from '../../strategies/compact-config.js';
import { createJob } from './job.js';
import type { CompactResult } from '../../strategies/compact-transcript.js';

export interface Compactor {
  /** The validated config, defaults filled in. */
  readonly config: CompactConfig;
  /** The step names in order, presets expanded (e.g. `auto` -> sanitize, strip-reasoning, ...). */
  readonly steps: readonly string[];
  /**
   * Compacts one transcript; what it replaces goes to `refs` (a new side store when not given; `result.refs`) so
   * `restoreTranscript` gives the input back exactly.
   */
  compact(transcript: Transcript, refs?: RefSink): CompactResult & { refs: RefSink | null };
}

/**
 * The library's entry point: `createCompactor({ strategies: ['auto'], window: 128000 }).compact(transcript)`. The
 * config is the `--config FILE` JSON (every field optional, validated here: E_CONFIG naming the bad path). LLM steps
 * need a model and run only in `runPipeline` with `llm`.
 */
export function createCompactor(input: CompactConfigInput = {}): Compactor {
  const config = parseCompactConfig(input);
  const job = createJob(config, { steps: buildSyncSteps(config, 'createCompactor') });
  return {
    config,
    steps: job.steps.map((s) => s.strategy.name),
    compact(transcript, refs) {
      const sink = config.refs ? (refs ?? new RefSink()) : null;
      return { ...job.compact(transcript, sink), refs: sink };
    },
  };
}
