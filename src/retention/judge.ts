import type { BatchRunReport, Batcher } from '../llm/batcher.js';
import { cacheKey } from '../llm/cache.js';
import { chatJob } from '../llm/chat-job.js';
import { isRetryable } from '../llm/failure.js';
import type { LlmJob } from '../llm/queue.js';
import { createBatcher } from '../llm/session.js';
import { type LlmOptions, type LlmOptionsInput, parseLlmOptions } from '../llm/config.js';
import type { LlmFailureCode } from '../llm/failure.js';
import { type LlmDeps, connectLlm } from '../llm/connection.js';
import type { LlmQueue } from '../llm/queue.js';
import { DROP_LEVELS, renderSpan } from '../strategies/llm/render.js';
import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import { REQUEST_OVERLAP_THRESHOLD, keyPhrases } from './key-phrases.js';
import { isRetained } from './matching.js';
import { type ModelView, viewOfMessages } from './model-view.js';
import type { Probe } from './probes.js';

/**
 * What the judge asks, by dimension. One question per dimension and context (not one per probe: each question sends
 * the whole compacted context, so per-probe questions would cost hundreds of times more), graded probe by probe.
 */
export const JUDGE_DIMENSIONS = ['recall', 'artifact', 'continuation', 'decision'] as const;
type JudgeDimension = (typeof JUDGE_DIMENSIONS)[number];

export const JUDGE_QUESTIONS: Readonly<Record<JudgeDimension, string>> = {
  recall: 'List every request the user made in this session, in order, as close to their own words as the transcript allows.',
  artifact: 'List every file the agent read, created or modified (full paths, exactly as written) and every shell command it ran (exactly as written).',
  continuation: "What is the user's most recent request (quote it), and which tasks are still open or pending?",
  decision: 'Which errors or failures occurred during the session (quote each error message), and was each one resolved later?',
};

const SYSTEM = [
  "You answer questions about an AI agent's working session, using only the transcript you are given.",
  'Quote paths, commands, error messages and requests exactly as they appear. If the transcript does not say, answer "unknown".',
  'Be exhaustive: list everything that applies, one item per line.',
].join(' ');

/** Bumped when the prompt changes, so cached or compared answers of another prompt are never mixed. */
const JUDGE_PROMPT_VERSION = 'judge-v1';

/** Which probes each dimension grades. */
function dimensionOf(probe: Probe): JudgeDimension {
  switch (probe.kind) {
    case 'artifact':
    case 'command':
      return 'artifact';
    case 'error':
      return 'decision';
    case 'task':
      return 'continuation';
    case 'intent':
      return probe.match === 'verbatim' ? 'continuation' : 'recall';
  }
}

function probeText(probe: Exclude<Probe, { kind: 'artifact' }>): string {
  switch (probe.kind) {
    case 'command':
      return probe.command;
    case 'error':
      return probe.line;
    case 'intent':
      return probe.text;
    case 'task':
      return probe.content;
  }
}

/**
 * Grades an answer against a probe of the original: paths by the same whole-path rule as the deterministic score; every
 * other probe (commands, error lines, requests, tasks) by key-phrase overlap, since a model restates rather than
 * copies.
 */
function gradeAnswer(probe: Probe, answer: ModelView, root?: string): boolean {
  if (probe.kind === 'artifact') return isRetained(probe, answer, root === undefined ? {} : { root });
  const phrases = keyPhrases(probeText(probe));
  if (phrases.length === 0) return answer.text.includes(probeText(probe));
  const index = answer.phrases();
  let found = 0;
  for (const p of phrases) if (index.has(p)) found++;
  return found / phrases.length >= REQUEST_OVERLAP_THRESHOLD;
}

interface JudgeTally {
  /** Questions asked (one per dimension that has probes). */
  questions: number;
  /** Questions with no usable answer: the request failed for good, or the context did not fit the judge's window. */
  failed: number;
  /** Probes of answered questions, and how many the answers held. */
  probes: number;
  retained: number;
}

const emptyTally = (): JudgeTally => ({ questions: 0, failed: 0, probes: 0, retained: 0 });

interface JudgeRow {
  name: string;
  byDimension: Record<JudgeDimension, JudgeTally>;
}

export interface JudgeReport {
  model: string;
  promptVersion: string;
  transcripts: number;
  rows: JudgeRow[];
  requests: number;
  promptTokens: number;
  completionTokens: number;
  failuresByCode: Partial<Record<LlmFailureCode | 'context_too_long', number>>;
  /** With `batch`: the judge's batches (see the run report's `llm.batch`). */
  batch?: BatchRunReport;
}

type JudgeDeps = Pick<LlmDeps, 'client' | 'clock' | 'random' | 'env'>;

/** Options of the judge: the LLM options (`model`, `baseURL`, `apiKey`, `llmConcurrency`, `rpm`, `tpm`, `timeoutMs`, `maxAttempts`, `maxTokens`, `contextWindow`). */
export type JudgeOptionsInput = Pick<
  LlmOptionsInput,
  'model' | 'baseURL' | 'apiKey' | 'llmConcurrency' | 'rpm' | 'tpm' | 'timeoutMs' | 'maxAttempts' | 'maxTokens' | 'contextWindow' | 'temperature' | 'batch'
>;

type JudgeAnswer = { ok: true; text: string; usage: { promptTokens: number; completionTokens: number } } | { ok: false; code: LlmFailureCode };

/** Answers at most this long are enough for a list of files or requests. */
const DEFAULT_JUDGE_MAX_TOKENS = 1024;

/**
 * Asks an OpenAI-compatible model each dimension's question against a compacted context and grades the answers against
 * the probes of the original transcript. Optional: the deterministic scores never depend on it. Requests go through
 * the LLM queue (concurrency, RPM/TPM limits, retries with backoff on 429/5xx); a failed question is counted, never
 * thrown.
 */
export class Judge {
  readonly options: LlmOptions;
  private readonly queue: LlmQueue;
  private readonly inputBudget: number;
  private readonly rows = new Map<string, JudgeRow>();
  private readonly tokenizer = getTokenizer('o200k_base');
  private readonly failures: JudgeReport['failuresByCode'] = {};
  private promptTokens = 0;
  private completionTokens = 0;
  private transcripts = 0;
  /** 0 unless the model refuses any temperature (o-series, gpt-5), as for the summarizer. */
  private readonly temperature: number | undefined;
  /** Batch mode: questions are gathered into batches first, then answered from their results. */
  private batcher: Batcher | undefined;

  /** A judge; with `batch` in the options, its questions go through the Batch API (see {@link Batcher}). */
  static async create(input: JudgeOptionsInput, deps: JudgeDeps = {}, batcher?: Batcher): Promise<Judge> {
    const judge = new Judge(input, deps);
    judge.batcher = batcher ?? (judge.options.batch ? await createBatcher(judge.options, deps) : undefined);
    return judge;
  }

  /** The Batch API side, in batch mode (shared by the judge of a gathering pass and the one that counts). */
  get batchSide(): Batcher | undefined {
    return this.batcher;
  }

  constructor(input: JudgeOptionsInput, deps: JudgeDeps = {}) {
    this.options = parseLlmOptions({ maxTokens: DEFAULT_JUDGE_MAX_TOKENS, ...input }, 'judge');
    const connection = connectLlm(this.options, deps, { source: 'judge', minPromptTokens: 0 });
    this.queue = connection.queue;
    this.inputBudget = connection.inputBudget;
    this.temperature = connection.temperature;
  }

  private row(name: string): JudgeRow {
    let row = this.rows.get(name);
    if (!row) {
      row = { name, byDimension: Object.fromEntries(JUDGE_DIMENSIONS.map((d) => [d, emptyTally()])) as Record<JudgeDimension, JudgeTally> };
      this.rows.set(name, row);
    }
    return row;
  }

  /** The context as the judge reads it, dropping older tool results (then clipping long messages) until it fits. */
  private render(messages: readonly Message[]): string | undefined {
    for (const maxMessageChars of [undefined, 4000]) {
      for (const drop of DROP_LEVELS) {
        const text = renderSpan(messages, { offset: 0, dropToolResults: drop, tokenizer: this.tokenizer, ...(maxMessageChars ? { maxMessageChars } : {}) });
        if (this.tokenizer.count(text) + this.tokenizer.count(SYSTEM) + 64 <= this.inputBudget) return text;
      }
    }
    return undefined;
  }

  /**
   * Judges the contexts of one transcript (the original first, then each strategy's), each against the original's
   * probes. Rows are summed by context name over transcripts.
   */
  async judge(id: string, probes: readonly Probe[], contexts: readonly { name: string; transcript: Transcript }[], root?: string): Promise<void> {
    this.transcripts++;
    const byDimension = new Map<JudgeDimension, Probe[]>();
    for (const p of probes) {
      const d = dimensionOf(p);
      byDimension.set(d, [...(byDimension.get(d) ?? []), p]);
    }
    const asks: Promise<void>[] = [];
    for (const context of contexts) {
      const rendered = this.render(context.transcript.messages);
      for (const dimension of JUDGE_DIMENSIONS) {
        const graded = byDimension.get(dimension);
        if (!graded) continue;
        const tally = this.row(context.name).byDimension[dimension];
        tally.questions++;
        if (rendered === undefined) {
          tally.failed++;
          this.failures.context_too_long = (this.failures.context_too_long ?? 0) + 1;
          continue;
        }
        const user = `<transcript>\n${rendered}\n</transcript>\n\nQuestion: ${JUDGE_QUESTIONS[dimension]}`;
        const job = chatJob(
          `${id}/${context.name}/${dimension}`,
          SYSTEM,
          user,
          { maxTokens: this.options.maxTokens, temperature: this.temperature },
          this.tokenizer,
        );
        const key = cacheKey({
          model: this.options.model,
          promptVersion: JUDGE_PROMPT_VERSION,
          params: { maxTokens: this.options.maxTokens, temperature: this.temperature ?? null },
          messages: job.request.messages,
        });
        if (this.batcher?.gathering) {
          this.batcher.defer(key, job);
          continue;
        }
        asks.push(
          this.answer(job, key).then((outcome) => {
            if (!outcome.ok) {
              tally.failed++;
              this.failures[outcome.code] = (this.failures[outcome.code] ?? 0) + 1;
              return;
            }
            this.promptTokens += outcome.usage.promptTokens;
            this.completionTokens += outcome.usage.completionTokens;
            const answer = viewOfMessages([{ role: 'assistant', content: outcome.text }]);
            for (const probe of graded) {
              tally.probes++;
              if (gradeAnswer(probe, answer, root)) tally.retained++;
            }
          }),
        );
      }
    }
    await Promise.all(asks);
  }

  /** The batch's answer when there is one; else (or when the batch did not answer and it may be asked again) the queue's. */
  private async answer(job: LlmJob, key: string): Promise<JudgeAnswer> {
    const batched = this.batcher?.resultOf(key);
    if (batched?.ok) {
      return { ok: true, text: batched.text, usage: batched.usage ?? { promptTokens: job.promptTokens, completionTokens: this.tokenizer.count(batched.text) } };
    }
    if (batched && this.batcher) {
      const askAgain = batched.reason !== 'error' || isRetryable(batched.failure.code);
      this.batcher.noteUnanswered(key, `${batched.reason}: ${batched.failure.code}: ${batched.failure.message}`, askAgain ? 'online' : 'fallback');
      if (!askAgain) return { ok: false, code: batched.failure.code };
    }
    const outcome = await this.queue.run(job);
    return outcome.ok ? { ok: true, text: outcome.value.text, usage: outcome.value.usage } : { ok: false, code: outcome.error.code };
  }

  report(): JudgeReport {
    return {
      model: this.options.model,
      promptVersion: JUDGE_PROMPT_VERSION,
      transcripts: this.transcripts,
      rows: [...this.rows.values()],
      requests: this.queue.stats().requests,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      failuresByCode: { ...this.failures },
      ...(this.batcher ? { batch: this.batcher.report() } : {}),
    };
  }
}
