import * as z from 'zod';
import type { Message } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { findViolations } from '../../model/validity.js';
import { refOf } from '../../refs/ref-store.js';
import { type Check, emptyRecord } from '../../llm/answerer.js';
import { chatJob } from '../../llm/chat-job.js';
import { tangentPlaceholder } from '../../model/compaction-marker.js';
import { BoundaryFields } from '../_config.js';
import { type LlmStepDeps, type LlmStepResult, llmDetails, noteFallback } from './llm-step.js';
import type { LlmStepReport } from './llm-step-report.js';
import { TANGENT_PROMPT_VERSION, type TangentAnswer, checkTangentAnswer, tangentSystemPrompt } from './prompts.js';
import { renderSpan } from './render.js';
import { protectedRange, turnStarts } from '../boundaries.js';
import type { AsyncStrategy, StrategyContext } from '../types.js';

/** The options of `classify-tangents` (`options.classify-tangents` in the config). */
const ClassifyTangentsConfigSchema = z.strictObject({
  ...BoundaryFields,
  /** Remove the tangent turns instead of only reporting them (`--remove-tangents`). @default false */
  remove: z.boolean().default(false),
});
export type ClassifyTangentsConfig = z.output<typeof ClassifyTangentsConfigSchema>;

/** The answer is a short JSON list; no need to reserve the summary's max_tokens for it. */
const ANSWER_MAX_TOKENS = 1024;
/** Each message's text is clipped to this many characters in the prompt at first; halved while the prompt is too long. */
const FIRST_CLIP_CHARS = 1500;
const MIN_CLIP_CHARS = 100;

interface Turn {
  number: number;
  from: number;
  to: number;
}

function turnsOf(messages: readonly Message[]): Turn[] {
  const starts = turnStarts(messages);
  return starts.map((from, i) => ({ number: i + 1, from, to: i + 1 < starts.length ? starts[i + 1] : messages.length }));
}

function renderTurns(messages: readonly Message[], turns: readonly Turn[], clipChars: number, ctx: StrategyContext): string {
  const blocks = turns.map(
    (t) =>
      `=== Turn ${t.number} ===\n${renderSpan(messages.slice(t.from, t.to), { offset: t.from, dropToolResults: 1, maxMessageChars: clipChars, tokenizer: ctx.tokenizer })}`,
  );
  const last = turns[turns.length - 1].number;
  return `${blocks.join('\n\n')}\n\nThe final task is the request of turn ${last}, the last turn. Tool outputs are left out.`;
}

/**
 * The LLM `classify-tangents` step (async, main thread): asks the model which turns are tangents to the final task and
 * reports them (turn numbers, message ranges, one-line reasons). With `remove`, each tangent turn outside the
 * kept head and tail (never the last turn) is replaced by a one-line placeholder whose ref holds the removed
 * messages, so tool pairs stay whole and `restore` can put the turn back. When the model fails or answers badly, the
 * transcript is returned unchanged and the report says why.
 */
async function classifyTangentTurns(transcript: Transcript, config: ClassifyTangentsConfig, ctx: StrategyContext, deps: LlmStepDeps): Promise<LlmStepResult> {
  const record = emptyRecord();
  const promptSizes: number[] = [];
  const messages = transcript.messages;
  const turns = turnsOf(messages);
  const result = (
    outcome: LlmStepReport['outcome'],
    notes: string[],
    extra: Partial<LlmStepReport> = {},
    out: Message[] = messages,
    changed = 0,
    removed = 0,
  ): LlmStepResult => {
    const llm: LlmStepReport = { strategy: 'classify-tangents', outcome, promptSizes, usage: record, costUsd: deps.answerer.costOf(record), ...extra };
    return {
      transcript: out === messages ? transcript : { ...transcript, messages: out },
      messagesChanged: changed,
      messagesRemoved: removed,
      details: { ...llmDetails(llm), tangentTurns: llm.tangents?.length ?? 0, tangentTurnsRemoved: llm.tangents?.filter((t) => t.removed).length ?? 0 },
      notes: [...notes, ...record.notes],
      llm,
    };
  };
  if (turns.length < 2) return result('unchanged', ['classify-tangents: fewer than 2 turns']);

  try {
    let rendered = '';
    let job: ReturnType<typeof chatJob> | undefined;
    for (let clip = FIRST_CLIP_CHARS; ; clip = Math.floor(clip / 2)) {
      if (clip < MIN_CLIP_CHARS) return result('unchanged', ['classify-tangents: the transcript is too long to classify in one prompt']);
      rendered = renderTurns(messages, turns, clip, ctx);
      const params = { ...deps.params, maxTokens: ANSWER_MAX_TOKENS };
      job = chatJob(`${transcript.id}:tangents`, tangentSystemPrompt(), rendered, params, ctx.tokenizer);
      if (job.promptTokens <= deps.inputBudget) break;
    }
    const lastTurn = turns.length;
    const check: Check<TangentAnswer> = (answer) => {
      const checked = checkTangentAnswer(answer);
      if (!checked.ok) return checked;
      const unknown = checked.answer.tangents.find((t) => t.turn > lastTurn);
      if (unknown) return { ok: false, reason: `the answer names turn ${unknown.turn}, but there are ${lastTurn}` };
      return { ok: true, value: checked.answer };
    };
    const asked = await deps.answerer.ask(job!, TANGENT_PROMPT_VERSION, check);
    for (let i = 0; i < asked.record.requests; i++) promptSizes.push(job!.promptTokens);
    Object.assign(record, asked.record);
    if (!asked.ok) {
      const reason = asked.failure
        ? `${asked.failure.code}: ${asked.failure.message}`
        : `every answer was rejected; last: ${asked.record.rejections.at(-1) ?? 'unknown'}`;
      return result('fallback', [`classify-tangents: no classification (transcript unchanged): ${reason}`], { fallback: { applied: [], reason } });
    }

    const { headEnd, tailStart } = protectedRange(messages, config);
    const byTurn = new Map<number, string>();
    for (const t of asked.value.tangents) if (t.turn < lastTurn && !byTurn.has(t.turn)) byTurn.set(t.turn, t.reason.split('\n')[0]);
    const tangents = [...byTurn.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([number, reason]) => {
        const t = turns[number - 1];
        const removable = config.remove && t.from >= headEnd && t.to <= tailStart;
        return { turn: number, from: t.from, to: t.to, reason, removed: removable };
      });
    const notes = tangents.map((t) => `tangent turn ${t.turn} (messages #${t.from}-#${t.to - 1})${t.removed ? ' removed' : ''}: ${t.reason}`);
    if (!tangents.some((t) => t.removed)) return result('classified', notes, { tangents });

    const out: Message[] = [];
    let next = 0;
    let removed = 0;
    const pieces: string[] = [];
    for (const t of tangents) {
      if (!t.removed) continue;
      out.push(...messages.slice(next, t.from));
      const data = JSON.stringify(messages.slice(t.from, t.to));
      const ref = ctx.refs ? refOf(data) : undefined;
      pieces.push(data);
      out.push({ role: 'user', content: tangentPlaceholder(t.turn, t.to - t.from, t.reason, ref) });
      removed += t.to - t.from;
      next = t.to;
    }
    out.push(...messages.slice(next));
    if (findViolations(out).length > findViolations(messages).length) {
      for (const t of tangents) t.removed = false;
      return result('classified', [...notes, 'classify-tangents: removal skipped, it would break tool call pairing'], { tangents });
    }
    for (const data of pieces) ctx.refs?.putJson(data);
    return result('classified', notes, { tangents }, out, 0, removed);
  } catch (err) {
    return result('fallback', [`classify-tangents: internal error (transcript unchanged): ${err instanceof Error ? err.message : String(err)}`], {
      fallback: { applied: [], reason: 'internal error' },
    });
  }
}

export const classifyTangents: AsyncStrategy<typeof ClassifyTangentsConfigSchema> = {
  name: 'classify-tangents',
  summary: 'asks the model which turns are tangents to the final task; reports them, or removes them with `remove`',
  config: ClassifyTangentsConfigSchema,
  async: true,
  apply: async (transcript, config, ctx) => noteFallback(transcript.id, await classifyTangentTurns(transcript, config, ctx, ctx.llm), ctx.llm),
};
