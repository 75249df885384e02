import type { Transcript } from '../../model/transcript.js';
import { sameTranscript, storeRecipe, withRestoreRef } from '../../refs/recipe.js';
import type { RefSink } from '../../refs/ref-store.js';
import { compactTranscript } from '../../strategies/compact-transcript.js';
import { buildSteps } from '../../strategies/pipeline-config.js';
import { type PipelineStep, type RunResult, runSteps } from '../../strategies/runner.js';
import type { StrategyContext } from '../../strategies/types.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import type { JobSettings, TranscriptReport } from '../shard/types.js';

export interface Compacted {
  /** The compacted transcript as one JSON line (no `\n`). */
  json: string;
  report: Omit<TranscriptReport, 'file' | 'line'>;
  /**
   * The transcript stopped before the summarizer step because it is still above that step's threshold: the main
   * thread summarizes it with the LLM and runs the steps after (see llm-stage.ts).
   */
  pending: boolean;
}

/** A job's pipeline, built once per worker and reused for every transcript of every shard. */
export interface Compactor {
  compact(transcript: Transcript, refs: RefSink): Compacted;
}

const cache = new Map<string, Compactor>();

export function compactorFor(job: JobSettings): Compactor {
  let compactor = cache.get(job.configHash);
  if (!compactor) {
    compactor = createCompactor(job);
    cache.set(job.configHash, compactor);
  }
  return compactor;
}

function createCompactor(job: JobSettings): Compactor {
  const steps: PipelineStep[] = buildSteps(job.config);
  const tokenizer = getTokenizer(job.config.tokenizer);
  const { window } = job.config;
  const split = job.llmSplitAt;
  const head = split === undefined ? steps : steps.slice(0, split);
  const rest = split === undefined ? [] : steps.slice(split);
  return {
    compact(transcript, refs) {
      const ctx: StrategyContext = { tokenizer, refs: job.config.refs ? refs : null, window };
      if (split === undefined) return compacted(transcript, compactTranscript(transcript, steps, ctx), false);
      const first = runSteps(transcript, head, ctx);
      const summarizer = steps[split];
      if (!summarizer.when || summarizer.when(first.tokensAfter, ctx)) return compacted(transcript, finish(transcript, first, ctx), true);
      // Below the summarizer's threshold: the rest of the fold here, exactly as one runSteps over every step would do.
      const second = runSteps(first.transcript, rest, ctx);
      const run: RunResult = { ...second, steps: [...first.steps, ...second.steps], tokensBefore: first.tokensBefore, before: first.before };
      return compacted(transcript, finish(transcript, run, ctx), false);
    },
  };
}

/** What compactTranscript does after its fold: the input itself when nothing changed, else a restore recipe layer. */
function finish(input: Transcript, run: RunResult, ctx: StrategyContext): RunResult {
  if (sameTranscript(input, run.transcript)) return { ...run, transcript: input };
  if (!ctx.refs) return run;
  const restore = storeRecipe(input, run.transcript, ctx.refs);
  return { ...run, transcript: withRestoreRef(input, run.transcript, restore) };
}

function compacted(input: Transcript, run: RunResult, pending: boolean): Compacted {
  return {
    json: JSON.stringify(run.transcript),
    report: {
      id: input.id,
      messagesBefore: input.messages.length,
      messagesAfter: run.transcript.messages.length,
      tokensBefore: run.tokensBefore,
      tokensAfter: run.tokensAfter,
      before: run.before,
      after: run.after,
      steps: run.steps,
    },
    pending,
  };
}
