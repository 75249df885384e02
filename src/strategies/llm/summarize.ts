import * as z from 'zod';
import { onFirstUse } from '../../on-first-use.js';
import { contentText } from '../../model/content.js';
import type { Message } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { findViolations, lastUserRequestIndex } from '../../model/validity.js';
import { refOf } from '../../refs/ref-store.js';
import { countMessage, countTranscript, totalOf } from '../../tokens/breakdown.js';
import { type AskResult, type Check, addRecord, emptyRecord } from '../../llm/answerer.js';
import { chatJob } from '../../llm/chat-job.js';
import { type RefLookup, summaryHeader, withOriginals } from '../../model/compaction-marker.js';
import { type LlmStepDeps, type LlmStepResult, llmDetails, noteFallback } from './llm-step.js';
import type { FallbackStrategy, LlmStepReport } from './llm-step-report.js';
import { PROMPT_VERSION, type SpanPosition, checkSummary, mergeSummaries, summarySystemPrompt, summaryUserPrompt } from './prompts.js';
import { type Chunk, chunksOf } from './chunks.js';
import { DROP_LEVELS, renderSpan } from './render.js';
import type { LlmJob } from '../../llm/queue.js';
import type { KeepOptions } from '../boundaries.js';
import { type ReplaceSpan, replaceableSpan, replacedMessages, replacementRole, withReplacement } from '../_span.js';
import { BoundaryFields } from '../_config.js';
import { checkpoint, checkpointBudget } from '../checkpoint.js';
import { extractFacts } from '../_checkpoint-facts.js';
import { type CheckpointSkeleton, checkpointSkeleton, missingFrom } from '../_checkpoint-skeleton.js';
import { truncate } from '../truncate.js';
import type { AsyncStrategy, Strategy, StrategyContext } from '../types.js';

/** The options of `summarize`; the same fields, with the same defaults, as in the LLM options. */
/** The options of `summarize` (`options.summarize` in the config); the model and its limits are the run's LLM options. */
const SummarizeConfigSchema = z.strictObject({
  ...BoundaryFields,
  /** Extra instruction added to the summary prompt (e.g. "the database migration"); `--focus`. */
  focus: z.string().min(1).optional(),
  /** Parts a too-long span may be split into before summarize gives up. @default 8 */
  maxChunks: z.number().int().min(1).max(64).default(8),
  /**
   * Give the model the checkpoint's salient lists of the span (files, commands, unresolved errors, open tasks, at the
   * checkpoint's default budget) as the skeleton of its summary, and add below the summary the listed facts it left
   * out, so the summary keeps the checkpoint's recall. @default true
   */
  skeleton: z.boolean().default(true),
});
export type SummarizeConfig = z.output<typeof SummarizeConfigSchema>;

/** The checkpoint's own budget curve, which sizes the skeleton. */
const checkpointDefaults = onFirstUse(() => checkpoint.config.parse({}));

/** The last user request is repeated in the continuation note up to this many characters (it follows verbatim anyway). */
const REPEAT_REQUEST_CHARS = 2000;
/** After a context_length_exceeded while in parts, the next parts aim at this share of the smallest refused prompt. */
const SHRINK_AFTER_REFUSAL = 0.7;
/** The smallest budget (tokens) worth splitting a span for; below it summarize gives up. */
const MIN_CHUNK_BUDGET = 512;

/**
 * The messages a summary replaces: the middle between the kept head and the protected tail, the last user request
 * left in place (the summary then follows it as an `assistant` message), never starting with a tool result, and never
 * holding an earlier compaction message whose original cannot be looked up (that message stays, and the span starts
 * after it). See `replaceableSpan`.
 */
function summarySpan(messages: readonly Message[], config: KeepOptions, lookup: RefLookup): ReplaceSpan | undefined {
  return replaceableSpan(messages, config, lookup);
}

function continuationNote(ref: string | undefined, lastRequest: string | undefined): string {
  const where = ref
    ? `The full record of those messages is kept in the side store under ref ${ref}; \`tcompact restore\` puts them back.`
    : 'The full record of those messages was not kept (refs were turned off).';
  const request =
    lastRequest === undefined
      ? 'No user request was recorded.'
      : `The last user request was:\n> ${(lastRequest.length > REPEAT_REQUEST_CHARS ? `${lastRequest.slice(0, REPEAT_REQUEST_CHARS)} [...]` : lastRequest).replace(/\n/g, '\n> ')}`;
  return [
    '---',
    `This session continues from the summary above: tcompact replaced earlier messages with it so the work fits the context window. ${where} The most recent messages follow verbatim.`,
    request,
    'Continue the work from there.',
  ].join('\n');
}

/* ---------- deterministic fallback ---------- */

interface FallbackResult {
  transcript: Transcript;
  applied: FallbackStrategy[];
  messagesChanged: number;
  messagesRemoved: number;
  notes: string[];
}

/** The fallback's config: the boundary fields and window its schema declares, else its defaults. */
function fallbackConfig(strategy: Strategy, config: SummarizeConfig, ctx: StrategyContext): unknown {
  const shape = (strategy.config as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const input: Record<string, unknown> = {};
  for (const key of ['keepLast', 'keepMessages', 'keepResults'] as const) if (key in shape) input[key] = config[key];
  if ('keepFirst' in shape && config.keepFirst !== undefined) input.keepFirst = config.keepFirst;
  if ('window' in shape) input.window = ctx.window;
  const parsed = strategy.config.safeParse(input);
  if (parsed.success) return parsed.data;
  const defaults = strategy.config.safeParse({});
  return defaults.success ? defaults.data : undefined;
}

const FALLBACKS: Record<FallbackStrategy, Strategy> = { checkpoint, truncate };

/**
 * What a transcript gets when the model's summary cannot be used: the deterministic `checkpoint`, then `truncate` if
 * the result still exceeds the window. A step that throws or would add tokens is skipped, so the worst case is the
 * transcript unchanged, never lost.
 */

function deterministicFallback(transcript: Transcript, config: SummarizeConfig, ctx: StrategyContext): FallbackResult {
  const out: FallbackResult = { transcript, applied: [], messagesChanged: 0, messagesRemoved: 0, notes: [] };
  let tokens = countTranscript(transcript, ctx.tokenizer).total;
  const run = (name: FallbackStrategy) => {
    const strategy = FALLBACKS[name];
    const strategyConfig = fallbackConfig(strategy, config, ctx);
    if (strategyConfig === undefined) {
      out.notes.push(`fallback ${name} is not available`);
      return;
    }
    try {
      const r = strategy.apply(out.transcript, strategyConfig as never, ctx);
      const after = countTranscript(r.transcript, ctx.tokenizer).total;
      if (after > tokens) {
        out.notes.push(`fallback ${name} skipped: it would add ${after - tokens} tokens`);
        return;
      }
      out.transcript = r.transcript;
      out.applied.push(name);
      out.messagesChanged += r.messagesChanged;
      out.messagesRemoved += r.messagesRemoved;
      tokens = after;
    } catch (err) {
      out.notes.push(`fallback ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  run('checkpoint');
  if (tokens > ctx.window) run('truncate');
  return out;
}

/* ---------- the step ---------- */

function failureReason(result: AskResult<unknown>): string {
  if (result.ok) return '';
  if (result.failure) return `${result.failure.code}: ${result.failure.message}`;
  const last = result.record.rejections[result.record.rejections.length - 1];
  return `every answer was rejected (${result.record.rejections.length}); last: ${last ?? 'unknown'}`;
}

/**
 * The LLM `summarize` step for one transcript (async, on the main thread; never in a worker). Keeps the first
 * `keepFirst` messages and the last `keepLast` turns, sends the middle (its original messages, never an earlier
 * summary) with the structured prompt, and replaces it with one `user` message: the summary plus a continuation note
 * that says where the full record is and repeats the last user request.
 *
 * Too long for the model (our count over the budget, or the server's context_length_exceeded): tool results are left
 * out progressively (0, 10, 20, 50, 100 percent, oldest first), then the span is split into parts summarized in order
 * and merged by section; a refused prompt is never sent again. An empty, malformed or not-smaller summary is rejected;
 * after maxAttempts answers, or when the request fails for good, the transcript falls back to `checkpoint` (then
 * `truncate`). Never throws and never returns a transcript with more tokens than it was given.
 */
async function summarizeTranscript(transcript: Transcript, config: SummarizeConfig, ctx: StrategyContext, deps: LlmStepDeps): Promise<LlmStepResult> {
  const record = emptyRecord();
  const promptSizes: number[] = [];
  const report = (outcome: LlmStepReport['outcome'], extra: Partial<LlmStepReport> = {}): LlmStepReport => ({
    strategy: 'summarize',
    outcome,
    promptSizes,
    usage: record,
    costUsd: deps.answerer.costOf(record),
    ...extra,
  });
  const fallback = (reason: string, span?: ReplaceSpan): LlmStepResult => {
    const fb = deterministicFallback(transcript, config, ctx);
    const llm = report('fallback', { fallback: { applied: fb.applied, reason }, ...(span ? { span: { from: span.from, to: span.to } } : {}) });
    const applied = fb.applied.length > 0 ? fb.applied.join(' then ') : 'nothing (transcript unchanged)';
    return {
      transcript: fb.transcript,
      messagesChanged: fb.messagesChanged,
      messagesRemoved: fb.messagesRemoved,
      details: llmDetails(llm),
      notes: [`summarize fell back to ${applied}: ${reason}`, ...fb.notes, ...record.notes],
      llm,
    };
  };
  try {
    return await summarizeOrFallBack();
  } catch (err) {
    return fallback(`internal error: ${err instanceof Error ? err.message : String(err)}`);
  }

  async function summarizeOrFallBack(): Promise<LlmStepResult> {
    const messages = transcript.messages;
    const tok = ctx.tokenizer;
    const lookup: RefLookup = (ref) => ctx.refs?.get(ref) ?? deps.resolveRef?.(ref);
    const span = summarySpan(messages, config, lookup);
    if (!span) {
      const llm = report('unchanged');
      return {
        transcript,
        messagesChanged: 0,
        messagesRemoved: 0,
        details: llmDetails(llm),
        notes: ['summarize: no span of at least 2 messages between the kept head and tail'],
        llm,
      };
    }
    const replaced = replacedMessages(messages, span);
    const source = withOriginals(replaced, lookup);
    let spanTokens = 0;
    for (const m of replaced) spanTokens += totalOf(countMessage(m, tok));
    const data = JSON.stringify(replaced);
    const ref = ctx.refs ? refOf(data) : undefined;
    const lastUser = lastUserRequestIndex(messages);
    const lastRequest = lastUser < 0 ? undefined : contentText((messages[lastUser] as { content?: Parameters<typeof contentText>[0] }).content);
    const note = continuationNote(ref, lastRequest);
    const role = replacementRole(span, lastUser);
    const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
    const skeleton: CheckpointSkeleton | undefined = config.skeleton
      ? checkpointSkeleton(extractFacts(source), checkpointBudget(spanTokens, checkpointDefaults()), root)
      : undefined;
    const kept = (summary: string) => {
      const missing = skeleton === undefined ? [] : missingFrom(summary, skeleton);
      return missing.length === 0 ? '' : `\n\n## From the checkpoint (facts the summary above leaves out)\n${missing.join('\n')}`;
    };
    const summaryMessage = (summary: string): Message => ({
      role,
      content: `${summaryHeader(replaced.length, ref)}\n\n${summary}${kept(summary)}\n\n${note}`,
    });
    const smaller: Check<string> = (answer) => {
      const checked = checkSummary(answer);
      if (!checked.ok) return checked;
      const tokens = totalOf(countMessage(summaryMessage(checked.text), tok));
      if (tokens >= spanTokens) return { ok: false, reason: `summary not smaller: ${tokens} tokens in place of ${spanTokens}` };
      return { ok: true, value: checked.text };
    };
    const wellFormed: Check<string> = (answer) => {
      const checked = checkSummary(answer);
      return checked.ok ? { ok: true, value: checked.text } : checked;
    };
    const system = summarySystemPrompt(config.focus);
    const params = deps.params;
    const position = (part?: SpanPosition['part'], from = span.from, to = span.to): SpanPosition => ({
      from,
      to,
      total: messages.length,
      ...(part ? { part } : {}),
    });
    const ask = async (job: LlmJob, check: Check<string>): Promise<AskResult<string>> => {
      const result = await deps.answerer.ask(job, PROMPT_VERSION, check);
      for (let i = 0; i < result.record.requests; i++) promptSizes.push(job.promptTokens);
      addRecord(record, result.record);
      return result;
    };
    const accept = (summary: string, extra: Partial<LlmStepReport>): LlmStepResult => {
      const out = withReplacement(messages, span, summaryMessage(summary));
      if (findViolations(out).length > findViolations(messages).length) return fallback('the summary would break tool call pairing', span);
      if (ref) ctx.refs?.putJson(data);
      const llm = report('summarized', { span: { from: span.from, to: span.to }, ...extra });
      const notes =
        record.rejections.length > 0 ? [`summarize rejected ${record.rejections.length} answer(s) before accepting one: ${record.rejections.join('; ')}`] : [];
      return {
        transcript: { ...transcript, messages: out },
        messagesChanged: 0,
        messagesRemoved: replaced.length,
        details: llmDetails(llm),
        notes: [...notes, ...record.notes],
        llm,
      };
    };

    // 1. The whole span, leaving out more and more tool results while it is too long.
    let smallestRefused = Infinity;
    for (const drop of DROP_LEVELS) {
      const rendered = renderSpan(source, { offset: span.from, dropToolResults: drop, tokenizer: tok });
      const job = chatJob(transcript.id, system, summaryUserPrompt(rendered, position(), skeleton?.text), params, tok);
      if (job.promptTokens > deps.inputBudget || job.promptTokens >= smallestRefused) continue;
      const result = await ask(job, smaller);
      if (result.ok) return accept(result.value, { droppedToolResults: drop, chunks: 1 });
      if (result.failure?.code !== 'context_length_exceeded') return fallback(failureReason(result), span);
      smallestRefused = job.promptTokens;
    }

    // 2. In parts, summarized in order and merged by section; after a refusal, smaller parts.
    let budget = Math.min(deps.inputBudget, smallestRefused - 1);
    const overhead = chatJob(transcript.id, system, summaryUserPrompt('', position({ index: 99, count: 99 })), params, tok).promptTokens;
    while (budget - overhead >= MIN_CHUNK_BUDGET) {
      let chunks: Chunk[] | undefined;
      let drop = 0;
      for (drop of [0, 1]) {
        chunks = chunksOf(source, span.from, budget - overhead, drop, tok);
        if (chunks && chunks.length <= config.maxChunks) break;
      }
      if (!chunks || chunks.length > config.maxChunks) {
        return fallback(`the span is too long for the model even in ${config.maxChunks} parts`, span);
      }
      const parts: string[] = [];
      let refused = false;
      // While a batch run gathers its requests, every part is asked (none depends on another's answer), so all of them
      // go into the same batch.
      let waiting: AskResult<string> | undefined;
      for (let k = 0; k < chunks.length; k++) {
        const c = chunks[k];
        const part = chunks.length > 1 ? { index: k + 1, count: chunks.length } : undefined;
        const job = chatJob(`${transcript.id}#${k + 1}`, system, summaryUserPrompt(c.rendered, position(part, c.from, c.to)), params, tok);
        if (job.promptTokens >= smallestRefused) {
          refused = true;
          break;
        }
        const result = await ask(job, wellFormed);
        if (result.ok) {
          parts.push(result.value);
          continue;
        }
        if (result.failure?.code === 'batch_pending') {
          waiting = result;
          continue;
        }
        if (result.failure?.code !== 'context_length_exceeded') return fallback(failureReason(result), span);
        smallestRefused = Math.min(smallestRefused, job.promptTokens);
        refused = true;
        break;
      }
      if (waiting && !refused) return fallback(failureReason(waiting), span);
      if (!refused) {
        const merged = smaller(mergeSummaries(parts));
        if (!merged.ok) return fallback(merged.reason, span);
        return accept(merged.value, { droppedToolResults: drop, chunks: chunks.length });
      }
      budget = Math.min(Math.floor(smallestRefused * SHRINK_AFTER_REFUSAL), budget - 1);
    }
    return fallback('context_length_exceeded: the span does not fit the model even in small parts', span);
  }
}

export const summarize: AsyncStrategy<typeof SummarizeConfigSchema> = {
  name: 'summarize',
  summary: 'replaces the middle of the transcript with a structured summary by the model; falls back to checkpoint',
  config: SummarizeConfigSchema,
  async: true,
  apply: async (transcript, config, ctx) => noteFallback(transcript.id, await summarizeTranscript(transcript, config, ctx, ctx.llm), ctx.llm),
};
