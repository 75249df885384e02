import { TcompactError } from '../../errors.js';
import type { LlmSession } from '../../llm/session.js';
import type { Transcript } from '../../model/transcript.js';
import { SIDE_STORE_VERSION, SideStore, parseRefLine } from '../../refs/ref-file.js';
import { RefSink } from '../../refs/ref-store.js';
import type { RefLookup } from '../../refs/restore.js';
import type { Job } from '../job/job.js';
import { endShardOutput, sectionTexts } from '../shard/encoding.js';
import { OutputBuffer } from '../shard/output-buffer.js';
import type { ShardHook } from './shard-hook.js';

/** One transcript's new side-store entries; lookups fall through to the shard's side store. */
class TranscriptRefs extends RefSink {
  constructor(private readonly shard: RefLookup) {
    super();
  }

  override get(ref: string): string | undefined {
    return super.get(ref) ?? this.shard.get(ref);
  }
}

/**
 * The main-thread part of a job with LLM steps, as a shard hook: each transcript a worker handed on runs the job's
 * steps from there on, sharing the run's one LLM session (queue, limiter, cache). What they
 * change is one more restore layer on the transcript, and their steps are appended to its report, so savings still
 * add up per step.
 */
export function createLlmStage(job: Job, llm: LlmSession): ShardHook {
  const keepRefs = job.config.refs;
  return async (output, _shard, signal) => {
    const handedOn = output.handedOn ?? [];
    if (handedOn.length === 0) return output;
    const texts = sectionTexts(output);
    const lines = texts.transcripts.split('\n');
    lines.pop();
    // The shard's side store so far: a summary made over an earlier compaction looks the originals up in it.
    const sink = new SideStore(SIDE_STORE_VERSION);
    const known = new Set<string>();
    for (const line of texts.refs.split('\n')) {
      if (line === '') continue;
      const entry = parseRefLine(line);
      sink.add(entry);
      known.add(entry.ref);
    }
    // Each transcript stores its refs apart, merged below in transcript order: refs.jsonl must not depend on which
    // answer came back first.
    const own = handedOn.map(() => (keepRefs ? new TranscriptRefs(sink) : null));
    await Promise.all(
      handedOn.map(async ({ index, resumeAt }, i) => {
        const handed = JSON.parse(lines[index]) as Transcript;
        own[i]?.withSource(handed, lines[index]);
        const run = await job.resume(handed, resumeAt, own[i], llm);
        const final = run.transcript;
        lines[index] = JSON.stringify(final);
        const report = output.report.transcripts[index];
        report.steps.push(...run.steps);
        report.tokensAfter = run.tokensAfter;
        report.after = run.after;
        report.messagesAfter = final.messages.length;
      }),
    );
    // Jobs cut short by a hard stop fell back without the model: such a shard must not commit, or a resume would keep it.
    if (signal.aborted) throw new TcompactError('E_LLM', 'interrupted while the LLM stage was running');
    const body = new OutputBuffer(output.body.byteLength);
    for (const line of lines) body.write(`${line}\n`);
    const refs = [texts.refs, ...own.flatMap((transcriptRefs) => transcriptRefs?.chunks(known) ?? [])];
    return endShardOutput(body, texts.errors, refs, output.report);
  };
}
