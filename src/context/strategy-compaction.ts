import type { LlmSession } from '../llm/session.js';
import type { ToolDef } from '../model/transcript.js';
import { type Job, createJob } from '../pipeline/job/job.js';
import { buildSteps, buildSyncSteps } from '../strategies/build-steps.js';
import { type CompactConfig, parseCompactConfig } from '../strategies/compact-config.js';
import type { PipelineStep, RunResult } from '../strategies/runner.js';
import type { RefSink } from '../refs/ref-store.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { CompactionHandler } from './compaction-handler.js';

export interface StrategyCompactionOptions {
  /** Strategies and presets, applied left to right, or steps already built. */
  strategies: readonly string[] | readonly PipelineStep[];
  tokenizer: Tokenizer;
  /** Config fields the steps read (keepLast, keepFirst, per-strategy options...), as in a `--config` file. */
  config?: Partial<Omit<CompactConfig, 'strategies' | 'tokenizer' | 'window'>>;
  /**
   * Where replaced content goes, so placeholders carry refs and a later checkpoint can expand an earlier one; one sink
   * per conversation. @default null (no refs)
   */
  refs?: RefSink | null;
  /** Tool definitions sent with every prompt: counted in the tokens the handler reports, as the caller counts them. */
  tools?: ToolDef[];
  /** Tokens every prompt carries outside the messages and tools (a system prompt the caller adds): added to the count. @default 0 */
  extraTokens?: number;
  /**
   * The model of the LLM steps (summarize, classify-tangents; auto's summarizer becomes summarize): with it the
   * handler awaits them; without it, a pipeline that holds one is an E_CONFIG error. @default none
   */
  llm?: LlmSession;
}

/**
 * A compaction handler that runs a strategy or pipeline over the prompt's messages. Steps are built once per window
 * (the request's `window` is the one the strategies measure against, e.g. `auto`'s conditional steps); names are
 * validated on the first call, or at once with {@link validateStrategyNames}. The tokens reported
 * are those of the messages plus the tool definitions, like `countTranscript`.
 */
export function strategyCompaction(options: StrategyCompactionOptions): CompactionHandler {
  const built = new Map<number, Job>();
  const given = options.strategies.length > 0 && typeof options.strategies[0] !== 'string' ? (options.strategies as readonly PipelineStep[]) : undefined;
  const jobFor = (window: number): Job => {
    let job = built.get(window);
    if (!job) {
      const names = given ? [] : [...(options.strategies as readonly string[])];
      const config = parseCompactConfig({ ...options.config, strategies: names, tokenizer: options.tokenizer.name, window });
      const steps = given ?? (options.llm ? undefined : buildSyncSteps(config, 'context manager'));
      job = createJob(config, { model: options.llm !== undefined, tokenizer: options.tokenizer, ...(steps ? { steps } : {}) });
      built.set(window, job);
    }
    return job;
  };
  const output = (result: RunResult) => {
    // Tool definitions are the caller's: a step that prunes them (prune-tools) does not change what the caller sends.
    const toolsTokens = options.tools && options.tools.length > 0 ? options.tokenizer.count(JSON.stringify(options.tools)) : 0;
    return { messages: result.transcript.messages, tokens: result.tokensAfter - result.after.tools + toolsTokens + (options.extraTokens ?? 0) };
  };
  return ({ messages, window }) => {
    const transcript = options.tools ? { id: 'context', messages: [...messages], tools: options.tools } : { id: 'context', messages: [...messages] };
    const folded = jobFor(window).fold(transcript, options.refs ?? null, options.llm);
    return folded instanceof Promise ? folded.then(output) : output(folded);
  };
}

/**
 * Throws E_CONFIG naming the first unknown strategy or preset (and the known ones), or, without `withModel`, the first
 * LLM step (it needs a model).
 */
export function validateStrategyNames(names: readonly string[], tokenizer: Tokenizer, withModel = false): void {
  const config = parseCompactConfig({ strategies: [...names], tokenizer: tokenizer.name });
  if (withModel) buildSteps(config);
  else buildSyncSteps(config, 'context manager');
}

/** A pipeline config with summarize's focus set, when there is one (`--focus`, or the focus of a compaction request). */
export function withFocus(config: StrategyCompactionOptions['config'], focus: string | undefined): StrategyCompactionOptions['config'] {
  if (focus === undefined) return config;
  return { ...config, options: { ...config?.options, summarize: { ...config?.options?.summarize, focus } } };
}
