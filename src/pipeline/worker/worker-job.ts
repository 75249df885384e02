import { transcriptProject } from '../../model/project.js';
import type { Transcript } from '../../model/transcript.js';
import type { RefSink } from '../../refs/ref-store.js';
import { type Job, createJob } from '../job/job.js';
import type { JobSettings, TranscriptReport } from '../shard/types.js';
import type { RunResult } from '../../strategies/runner.js';

export interface Compacted {
  /** The compacted transcript as one JSON line (no `\n`); serialized on first read. */
  readonly json: string;
  /** The fold returned the input transcript itself: the caller may write the input line's own text instead of `json`. */
  unchanged: boolean;
  report: Omit<TranscriptReport, 'file' | 'line'>;
  /** Handed on before this step of the job, an LLM step whose condition holds: the main thread runs the rest. */
  resumeAt?: number;
}

const jobs = new Map<string, Job>();

/** A worker's job for these settings, built on its first shard and reused for every transcript of every shard. */
export function jobFor(settings: JobSettings): Job {
  let job = jobs.get(settings.configHash);
  if (!job) {
    job = createJob(settings.config);
    jobs.set(settings.configHash, job);
  }
  return job;
}

/**
 * The worker's part of a job on one transcript: every step up to the first LLM step that is due. A transcript handed
 * on is written as its partial compaction, with its own restore recipe, so the main thread's part is one more layer.
 */
export function compactInWorker(job: Job, transcript: Transcript, refs: RefSink): Compacted {
  const started = job.start(transcript, refs);
  if (started.kind === 'done') return compacted(transcript, started.result);
  const out = compacted(transcript, job.finish(transcript, started.partial, refs));
  out.resumeAt = started.resumeAt;
  return out;
}

function compacted(input: Transcript, run: RunResult): Compacted {
  const project = transcriptProject(input);
  return new CompactedTranscript(run, run.transcript === input, {
    id: input.id,
    ...(project === undefined ? {} : { project }),
    messagesBefore: input.messages.length,
    messagesAfter: run.transcript.messages.length,
    tokensBefore: run.tokensBefore,
    tokensAfter: run.tokensAfter,
    before: run.before,
    after: run.after,
    steps: run.steps,
  });
}

/**
 * A class, not an object literal with a getter: each literal's getter is a new closure that V8 keeps in the object's
 * map, which lives in the old generation, so every transcript it closed over survived the young generation's
 * collections and was promoted whole (more than a byte promoted per input byte) until the next full collection.
 */
class CompactedTranscript implements Compacted {
  declare resumeAt?: number;

  constructor(
    private readonly run: RunResult,
    public unchanged: boolean,
    public report: Compacted['report'],
  ) {}

  get json(): string {
    return JSON.stringify(this.run.transcript);
  }
}
