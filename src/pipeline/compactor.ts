import type { RefSink } from '../refs/ref-store.js';
import { buildSteps } from '../strategies/pipeline-config.js';
import { compactTranscript } from '../strategies/compact-transcript.js';
import type { PipelineStep } from '../strategies/runner.js';
import type { Transcript } from '../model/transcript.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import type { JobSettings, TranscriptReport } from './shard.js';

export interface Compacted {
  /** The compacted transcript as one JSON line (no `\n`). */
  json: string;
  report: Omit<TranscriptReport, 'file' | 'line'>;
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
  const keepRefs = job.config.refs;
  return {
    compact(transcript, refs) {
      const run = compactTranscript(transcript, steps, { tokenizer, refs: keepRefs ? refs : null, window });
      return {
        json: JSON.stringify(run.transcript),
        report: {
          id: transcript.id,
          messagesBefore: transcript.messages.length,
          messagesAfter: run.transcript.messages.length,
          tokensBefore: run.tokensBefore,
          tokensAfter: run.tokensAfter,
          before: run.before,
          after: run.after,
          steps: run.steps,
        },
      };
    },
  };
}
