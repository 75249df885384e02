import { TcompactError } from '../../errors.js';
import type { LlmSession } from '../../llm/session.js';
import type { Transcript } from '../../model/transcript.js';
import { finishCompaction } from '../../refs/recipe.js';
import { formatRefLine } from '../../refs/ref-file.js';
import { RefSink } from '../../refs/ref-store.js';
import type { CompactConfig } from '../../strategies/compact-config.js';
import { type PipelineStep, runStepsAsync } from '../../strategies/runner.js';
import type { AsyncStrategyContext } from '../../strategies/types.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { encodeShardOutput, sectionTexts } from '../shard/encoding.js';
import type { ShardHook } from './shard-hook.js';

/** One transcript's new side-store entries; lookups fall through to the shard's side store. */
class TranscriptRefs extends RefSink {
  constructor(private readonly shard: RefSink) {
    super();
  }

  override get(ref: string): string | undefined {
    return super.get(ref) ?? this.shard.get(ref);
  }
}

/** The first async step of a pipeline, or undefined when it has none (then every step runs in the workers). */
export function firstAsyncStep(steps: readonly PipelineStep[]): PipelineStep | undefined {
  return steps.find((s) => s.strategy.async);
}

export interface AsyncStageOptions {
  llm: LlmSession;
  config: CompactConfig;
  /** The job's steps, as the workers built them. */
  steps: readonly PipelineStep[];
}

/**
 * The main-thread part of a pipeline with async (LLM) steps, as a shard hook: each transcript a worker stopped before
 * an async step runs the steps from there on, sharing the run's one LLM session (queue, limiter, cache). What they
 * change is one more restore layer on the transcript, and their steps are appended to its report, so savings still
 * add up per step.
 */
export function createAsyncStage(options: AsyncStageOptions): ShardHook {
  const { llm, config, steps } = options;
  const tokenizer = getTokenizer(config.tokenizer, config.tokenizerEngine);
  return async (output, _shard, signal) => {
    const pending = output.pending ?? [];
    if (pending.length === 0) return output;
    const texts = sectionTexts(output);
    const lines = texts.transcripts.split('\n');
    lines.pop();
    // The shard's side store so far: a summary made over an earlier compaction looks the originals up in it.
    const sink = new RefSink();
    for (const line of texts.refs.split('\n')) {
      if (line === '') continue;
      const { ref, data } = JSON.parse(line) as { ref: string; data: string };
      sink.entries.set(ref, data);
    }
    const known = new Set(sink.entries.keys());
    // Each transcript stores its refs apart, merged below in transcript order: refs.jsonl must not depend on which
    // answer came back first.
    const own = pending.map(() => (config.refs ? new TranscriptRefs(sink) : null));
    await Promise.all(
      pending.map(async ({ index, next }, i) => {
        const ctx: AsyncStrategyContext = { tokenizer, refs: own[i], window: config.window, llm };
        const input = JSON.parse(lines[index]) as Transcript;
        const run = await runStepsAsync(input, steps.slice(next), ctx);
        const final = finishCompaction(input, run.transcript, ctx.refs).transcript;
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
    let refs = texts.refs;
    for (const transcriptRefs of own) {
      for (const [ref, data] of transcriptRefs?.entries ?? []) {
        if (known.has(ref)) continue;
        known.add(ref);
        refs += formatRefLine(ref, data);
      }
    }
    return encodeShardOutput({ transcripts: lines.map((l) => `${l}\n`).join(''), errors: texts.errors, refs }, output.report);
  };
}
