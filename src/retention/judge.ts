import { type AskRecord, type Check, addRecord, emptyRecord } from '../llm/answerer.js';
import { chatJob } from '../llm/chat-job.js';
import type { LlmOptionsInput } from '../llm/config.js';
import type { LlmFailureCode } from '../llm/failure.js';
import { type LlmRunUsage, type LlmSession, type LlmSessionDeps, createLlmSession } from '../llm/session.js';
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
  /**
   * Questions with no usable answer: the request failed for good, every answer was rejected, or the context did not
   * fit the judge's window.
   */
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

/** Why a question got no usable answer: a request's failure code, or one of the judge's own. */
type JudgeFailureCode =
  | LlmFailureCode
  /** The context does not fit the judge's window even with older tool results dropped: never asked. */
  | 'context_too_long'
  /** Every answer was rejected: blank, or a 2xx that is not a chat completion (see the answerer's retry rule). */
  | 'rejected';

export interface JudgeReport {
  model: string;
  promptVersion: string;
  transcripts: number;
  rows: JudgeRow[];
  /** Requests sent, retries included; identical questions (contexts a strategy left unchanged) are paid once. */
  requests: number;
  /** Tokens paid for: answers reused from the cache cost none. */
  promptTokens: number;
  completionTokens: number;
  /** Questions answered from the answer cache or by an identical question of the same run. */
  cacheHits: number;
  failuresByCode: Partial<Record<JudgeFailureCode, number>>;
  /** With `batch`: the judge's batches (see the run report's `llm.batch`). */
  batch?: NonNullable<LlmRunUsage['batch']>;
}

type JudgeDeps = Pick<LlmSessionDeps, 'client' | 'clock' | 'random' | 'env' | 'onEvent' | 'signal' | 'batchApi' | 'onBatchProgress'>;

/**
 * Options of the judge: the LLM options (`model`, `baseURL`, `apiKey`, `llmConcurrency`, `rpm`, `tpm`, `timeoutMs`,
 * `maxAttempts`, `maxTokens`, `contextWindow`, `temperature`, `cacheDir`, `batch`).
 */
export type JudgeOptionsInput = Pick<
  LlmOptionsInput,
  | 'model'
  | 'baseURL'
  | 'apiKey'
  | 'llmConcurrency'
  | 'rpm'
  | 'tpm'
  | 'timeoutMs'
  | 'maxAttempts'
  | 'maxTokens'
  | 'contextWindow'
  | 'temperature'
  | 'cacheDir'
  | 'batch'
>;

/** Answers at most this long are enough for a list of files or requests. */
const DEFAULT_JUDGE_MAX_TOKENS = 1024;

/** The system prompt asks for "unknown" when the transcript does not say: a blank answer is never one. */
const answered: Check<string> = (answer) => (answer.trim() === '' ? { ok: false, reason: 'blank answer' } : { ok: true, value: answer });

/**
 * Asks an OpenAI-compatible model each dimension's question against a compacted context and grades the answers against
 * the probes of the original transcript. Optional: the deterministic scores never depend on it. The questions are
 * asked through an LLM session's answerer, as the LLM steps ask theirs: the same queue (concurrency, RPM/TPM limits,
 * retries with backoff on 429/5xx), answer cache, Batch API path and usage meter. A failed question is counted, never
 * thrown.
 */
export class Judge {
  private readonly rows = new Map<string, JudgeRow>();
  private readonly tokenizer = getTokenizer('o200k_base');
  private readonly failures: JudgeReport['failuresByCode'] = {};
  private readonly usage: AskRecord = emptyRecord();
  private transcripts = 0;

  /**
   * A judge with a session of its own (`maxTokens` defaults to 1024; a window too small for any context is not an
   * error: its questions are counted as failed). With `batch` in the options, its questions go through the Batch API.
   */
  static async create(input: JudgeOptionsInput, deps: JudgeDeps = {}): Promise<Judge> {
    return new Judge(await createLlmSession({ maxTokens: DEFAULT_JUDGE_MAX_TOKENS, ...input }, deps, { source: 'judge', minPromptTokens: 0 }));
  }

  /**
   * A judge that asks through `session`. Several judges may share one: in batch mode, the judge of a gathering pass
   * and the one that counts share the session whose batches the first gathers.
   */
  constructor(readonly session: LlmSession) {}

  private row(name: string): JudgeRow {
    let row = this.rows.get(name);
    if (!row) {
      row = { name, byDimension: Object.fromEntries(JUDGE_DIMENSIONS.map((d) => [d, emptyTally()])) as Record<JudgeDimension, JudgeTally> };
      this.rows.set(name, row);
    }
    return row;
  }

  private fail(tally: JudgeTally, code: JudgeFailureCode): void {
    tally.failed++;
    this.failures[code] = (this.failures[code] ?? 0) + 1;
  }

  /** The context as the judge reads it, dropping older tool results (then clipping long messages) until it fits. */
  private render(messages: readonly Message[]): string | undefined {
    for (const maxMessageChars of [undefined, 4000]) {
      for (const drop of DROP_LEVELS) {
        const text = renderSpan(messages, { offset: 0, dropToolResults: drop, tokenizer: this.tokenizer, ...(maxMessageChars ? { maxMessageChars } : {}) });
        if (this.tokenizer.count(text) + this.tokenizer.count(SYSTEM) + 64 <= this.session.inputBudget) return text;
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
          this.fail(tally, 'context_too_long');
          continue;
        }
        const user = `<transcript>\n${rendered}\n</transcript>\n\nQuestion: ${JUDGE_QUESTIONS[dimension]}`;
        const job = chatJob(`${id}/${context.name}/${dimension}`, SYSTEM, user, this.session.params, this.tokenizer);
        asks.push(
          this.session.answerer.ask(job, JUDGE_PROMPT_VERSION, answered).then((result) => {
            addRecord(this.usage, result.record);
            if (!result.ok) {
              this.fail(tally, result.failure?.code ?? 'rejected');
              return;
            }
            const answer = viewOfMessages([{ role: 'assistant', content: result.value }]);
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

  report(): JudgeReport {
    const batch = this.session.batcher?.report();
    return {
      model: this.session.options.model,
      promptVersion: JUDGE_PROMPT_VERSION,
      transcripts: this.transcripts,
      rows: [...this.rows.values()],
      requests: this.usage.requests,
      promptTokens: this.usage.promptTokens,
      completionTokens: this.usage.completionTokens,
      cacheHits: this.usage.cacheHits,
      failuresByCode: { ...this.failures },
      ...(batch ? { batch } : {}),
    };
  }
}
