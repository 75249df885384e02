import type { Transcript } from '../../model/transcript.js';
import { finishCompaction } from '../../refs/recipe.js';
import type { RefSink } from '../../refs/ref-store.js';
import { buildSteps } from '../../strategies/build-steps.js';
import { type PipelineStep, type RunResult, runUntilAsync } from '../../strategies/runner.js';
import type { StrategyContext } from '../../strategies/types.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import type { JobSettings, TranscriptReport } from '../shard/types.js';

export interface Compacted {
  /** The compacted transcript as one JSON line (no `\n`); serialized on first read. */
  readonly json: string;
  /** The fold returned the input transcript itself: the caller may write the input line's own text instead of `json`. */
  unchanged: boolean;
  report: Omit<TranscriptReport, 'file' | 'line'>;
  /**
   * The transcript stopped before this step, an async (LLM) one whose condition holds: the main thread runs the steps
   * from here on (see coordinator/async-stage.ts).
   */
  next?: number;
}

/** A job's pipeline, built once per worker and reused for every transcript of every shard. */
export interface Compactor {
  compact(transcript: Transcript, refs: RefSink): Compacted;
}

const cache = new Map<string, Compactor>();

export function compactorFor(job: JobSettings): Compactor {
  let compactor = cache.get(job.configHash);
  if (!compactor) {
    compactor = createWorkerCompactor(job);
    cache.set(job.configHash, compactor);
  }
  return compactor;
}

function createWorkerCompactor(job: JobSettings): Compactor {
  const steps: PipelineStep[] = buildSteps(job.config);
  const tokenizer = getTokenizer(job.config.tokenizer, job.config.tokenizerEngine);
  const { window } = job.config;
  return {
    compact(transcript, refs) {
      const ctx: StrategyContext = { tokenizer, refs: job.config.refs ? refs : null, window };
      const run = runUntilAsync(transcript, steps, ctx);
      return compacted(transcript, { ...run, transcript: finishCompaction(transcript, run.transcript, ctx.refs).transcript }, run.next);
    },
  };
}

function compacted(input: Transcript, run: RunResult, next: number | undefined): Compacted {
  const out: Compacted = {
    get json() {
      return JSON.stringify(run.transcript);
    },
    unchanged: run.transcript === input,
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
  };
  if (next !== undefined) out.next = next;
  return out;
}
