import { TcompactError } from '../../errors.js';
import type { LlmSummarizer } from '../../strategies/llm/summarizer.js';
import type { Transcript } from '../../model/transcript.js';
import { sameTranscript, storeRecipe, withRestoreRef } from '../../refs/recipe.js';
import { formatRefLine } from '../../refs/ref-file.js';
import { RefSink } from '../../refs/ref-store.js';
import { autoOptions } from '../../strategies/auto.js';
import type { CompactConfig } from '../../strategies/pipeline-config.js';
import { type PipelineStep, runSteps } from '../../strategies/runner.js';
import type { StepReport, StrategyContext } from '../../strategies/types.js';
import type { TranscriptTokens } from '../../tokens/breakdown.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import type { ShardHook } from './shard-hook.js';
import { encodeShardOutput, sectionTexts } from '../shard/encoding.js';

/**
 * Where the LLM takes over in a job's steps: the summarizer step of `auto` (a conditional `checkpoint` by default),
 * or undefined when the pipeline has none.
 */
export function llmSplitIndex(config: CompactConfig, steps: readonly PipelineStep[]): number | undefined {
  if (!config.strategies.includes('auto')) return undefined;
  const name = autoOptions(config).summarizer;
  const index = steps.findIndex((s) => s.strategy.name === name && s.when !== undefined);
  return index === -1 ? undefined : index;
}

export interface LlmStageOptions {
  summarizer: LlmSummarizer;
  config: CompactConfig;
  /** The job's steps and the summarizer's index in them (llmSplitIndex); undefined: only tangents. */
  steps: readonly PipelineStep[];
  splitAt: number | undefined;
  /** Run classify-tangents (removing the tangents, per the summarizer's options) on every transcript. */
  tangents: boolean;
}

/**
 * The main-thread LLM stage, as a shard hook: transcripts the worker left pending (above the summarizer's threshold)
 * are summarized by the model in place of `checkpoint`, then run through the steps after it; with tangents on, every
 * transcript first goes through classify-tangents. Requests of all shards share the summarizer's one queue and limiter.
 * What the stage changes is one more restore layer on the transcript, and its steps are appended to the transcript's
 * report, so savings still add up per step.
 */
export function createLlmStage(options: LlmStageOptions): ShardHook {
  const { summarizer, config } = options;
  const tail = options.splitAt === undefined ? [] : options.steps.slice(options.splitAt + 1);
  const tokenizer = getTokenizer(config.tokenizer);
  return async (output, _shard, signal) => {
    const pending = new Set(output.pending ?? []);
    if (pending.size === 0 && !options.tangents) return output;
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
    const ctx: StrategyContext = { tokenizer, refs: config.refs ? sink : null, window: config.window };
    await Promise.all(
      lines.map(async (line, i) => {
        if (!pending.has(i) && !options.tangents) return;
        const input = JSON.parse(line) as Transcript;
        let transcript = input;
        const steps: StepReport[] = [];
        let tokens: TranscriptTokens | undefined;
        if (options.tangents) {
          const r = await summarizer.classifyTangentsStep(transcript, ctx);
          ({ transcript, tokens } = r);
          steps.push(r.step);
        }
        if (pending.has(i)) {
          const r = await summarizer.summarizeStep(transcript, ctx);
          steps.push(r.step);
          const rest = runSteps(r.transcript, tail, ctx);
          transcript = rest.transcript;
          steps.push(...rest.steps);
          tokens = { total: rest.tokensAfter, byCategory: rest.after };
        }
        let final = transcript;
        if (sameTranscript(input, transcript)) final = input;
        else if (ctx.refs) final = withRestoreRef(input, transcript, storeRecipe(input, transcript, ctx.refs));
        lines[i] = JSON.stringify(final);
        const report = output.report.transcripts[i];
        report.steps.push(...steps);
        if (tokens) {
          report.tokensAfter = tokens.total;
          report.after = tokens.byCategory;
        }
        report.messagesAfter = final.messages.length;
      }),
    );
    // Jobs cut short by a hard stop fell back without the model: such a shard must not commit, or a resume would keep it.
    if (signal.aborted) throw new TcompactError('E_LLM', 'interrupted while the LLM stage was running');
    let refs = texts.refs;
    for (const [ref, data] of sink.entries) if (!known.has(ref)) refs += formatRefLine(ref, data);
    return encodeShardOutput({ transcripts: lines.map((l) => `${l}\n`).join(''), errors: texts.errors, refs }, output.report);
  };
}
