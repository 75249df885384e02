import { type Message, type ToolMessage, isAssistant, isTool } from '../../../model/message.js';
import { answeringModel, isModelCall, isSourceSummary } from '../../../model/recorded.js';
import type { Transcript } from '../../../model/transcript.js';
import { countMessage, totalOf } from '../../../tokens/breakdown.js';
import type { Tokenizer } from '../../../tokens/tokenizer.js';
import { CallClock } from '../../billing/call-clock.js';
import { contentBlocks } from '../../../provider/cache-rules.js';
import { CLEARED_INPUT, CLEARED_RESULT } from '../runtime/anthropic-context-editing.js';

/** One tool use: its call (a slot of an assistant message) and its result, as indices into the replayed messages. */
export interface PlannedUse {
  call: number;
  slot: number;
  /** -1 when the result never came, or came after the next reply (such a result is never cleared). */
  result: number;
  /** Tokens its result frees when cleared (negative for a result shorter than the placeholder). */
  resultSaving: number;
  /** Tokens its input frees when cleared (the earlier slots of the same message cleared already). */
  inputSaving: number;
  /** Content blocks its result loses when cleared (a result of several parts becomes one). */
  resultBlocksSaving: number;
}

/** One model call: the reply at `reply` (index into the replayed messages) and what bills it. */
export interface PlannedCall {
  reply: number;
  /** Index of the reply in the transcript's own messages (where a recorded warm base is read). */
  messageIndex: number;
  atMs: number;
  /** The cache it is billed on: its model's, or '' when the rules keep one cache. */
  cacheKey: string;
  /** Tool uses whose call precedes the reply. */
  uses: number;
}

/** A compaction's output, when it has the shape the schedule plans with: the leading system messages, one new message, then a tail of the history. */
export interface PlannedCompaction {
  /** The new message (the checkpoint) that stands for messages [leadingSystem, tail). */
  summary: Message;
  summaryTokens: number;
  /** First replayed message kept after the summary. */
  tail: number;
  /** First tool use whose call is in the tail. */
  firstUse: number;
}

/** Which uses a prompt clears: every use from `from` up to (not including) `to`, results and, with `inputs`, inputs. */
export interface Clearing {
  from: number;
  to: number;
  inputs: boolean;
}

/**
 * The facts of a transcript the hindsight schedule plans over, counted once: the messages the replay sends (a source's
 * own summaries left out), their tokens and content blocks as prefix sums, the calls and their times, the tool uses
 * and what clearing each frees. Cleared results and inputs are made once per message, so two prompts that clear the
 * same use hold the same object, and the prompt cache sees the same content.
 */
export class TranscriptPlan {
  readonly messages: Message[] = [];
  /** cumTokens[i]: tokens of messages [0, i). */
  readonly cumTokens: number[] = [0];
  /** cumBlocks[i]: content blocks of messages [0, i). */
  readonly cumBlocks: number[] = [0];
  readonly calls: PlannedCall[] = [];
  readonly uses: PlannedUse[] = [];
  /** Leading system and developer messages: the prefix a compaction keeps. */
  readonly leadingSystem: number;
  private readonly clearedResults = new Map<number, ToolMessage>();
  private readonly clearedInputs = new Map<string, Message>();

  constructor(
    transcript: Transcript,
    readonly tokenizer: Tokenizer,
    callGapSeconds: number,
    perModel: boolean,
  ) {
    const clock = new CallClock(transcript.messages, callGapSeconds * 1000);
    const open = new Map<string, number>();
    transcript.messages.forEach((m, messageIndex) => {
      const atMs = clock.next(m);
      if (isSourceSummary(m)) return;
      const i = this.messages.length;
      if (isAssistant(m) && isModelCall(m)) {
        this.calls.push({ reply: i, messageIndex, atMs, cacheKey: (perModel && answeringModel(m)) || '', uses: this.uses.length });
        m.tool_calls?.forEach((call, slot) => {
          open.set(call.id, this.uses.length);
          this.uses.push({ call: i, slot, result: -1, resultSaving: 0, inputSaving: 0, resultBlocksSaving: 0 });
        });
      } else if (isTool(m)) {
        const u = open.get(m.tool_call_id);
        if (u !== undefined && this.uses[u].result === -1) this.uses[u].result = i;
      }
      this.messages.push(m);
      this.cumTokens.push(this.cumTokens[i] + this.tokens(m));
      this.cumBlocks.push(this.cumBlocks[i] + contentBlocks(m));
    });
    let next = 0;
    for (const use of this.uses) {
      while (next < this.calls.length && this.calls[next].reply <= use.call) next++;
      const nextReply = next < this.calls.length ? this.calls[next].reply : this.messages.length;
      // A result after the next reply would change a prompt the cache has seen: it is never cleared.
      if (use.result > nextReply) use.result = -1;
      if (use.result >= 0) {
        use.resultSaving = this.tokens(this.messages[use.result]) - this.tokens(this.clearedResult(use.result));
        use.resultBlocksSaving = contentBlocks(this.messages[use.result]) - contentBlocks(this.clearedResult(use.result));
      }
      use.inputSaving = this.tokens(this.withInputsCleared(use.call, use.slot)) - this.tokens(this.withInputsCleared(use.call, use.slot + 1));
    }
    let lead = 0;
    while (lead < this.messages.length && (this.messages[lead].role === 'system' || this.messages[lead].role === 'developer')) lead++;
    this.leadingSystem = lead;
  }

  /** Tokens clearing the results and inputs of uses [0, to) frees at most. */
  clearable(to: number): number {
    let n = 0;
    for (let u = 0; u < to; u++) n += Math.max(0, this.uses[u].resultSaving) + Math.max(0, this.uses[u].inputSaving);
    return n;
  }

  tokens(m: Message): number {
    return totalOf(countMessage(m, this.tokenizer));
  }

  /** The result message at index `i`, cleared. */
  clearedResult(i: number): ToolMessage {
    let m = this.clearedResults.get(i);
    if (!m) this.clearedResults.set(i, (m = { ...(this.messages[i] as ToolMessage), content: CLEARED_RESULT }));
    return m;
  }

  /** The assistant message at index `i` with the inputs of its first `slots` tool calls cleared. */
  withInputsCleared(i: number, slots: number): Message {
    const m = this.messages[i];
    if (slots === 0 || !isAssistant(m)) return m;
    const key = `${i}:${slots}`;
    let out = this.clearedInputs.get(key);
    if (!out) {
      const calls = m.tool_calls?.map((c, s) => (s < slots ? { ...c, function: { ...c.function, arguments: CLEARED_INPUT } } : c));
      this.clearedInputs.set(key, (out = { ...m, tool_calls: calls }));
    }
    return out;
  }

  /**
   * The prompt of call `t` under a schedule: after the compaction made at call `segment` (-1: none; its output in
   * `compactions`), with the tool uses of the segment up to `cleared` cleared, inputs too or not.
   */
  promptAt(compactions: readonly (PlannedCompaction | undefined)[], inputs: boolean, t: number, segment: number, cleared: number): Message[] {
    const reply = this.calls[t].reply;
    const clearing = { inputs, to: cleared };
    if (segment < 0) return this.messagesWith(0, reply, { ...clearing, from: 0 });
    const c = compactions[segment]!;
    return [...this.messages.slice(0, this.leadingSystem), c.summary, ...this.messagesWith(c.tail, reply, { ...clearing, from: c.firstUse })];
  }

  /** Messages [from, to) as a prompt that clears `clearing` holds them. */
  messagesWith(from: number, to: number, clearing: Clearing): Message[] {
    const out = this.messages.slice(from, to);
    for (let u = clearing.from; u < clearing.to; u++) {
      const use = this.uses[u];
      if (use.result >= from && use.result < to) out[use.result - from] = this.clearedResult(use.result);
      if (clearing.inputs && use.call >= from && use.call < to) {
        const last = u + 1 === clearing.to || this.uses[u + 1].call !== use.call;
        if (last) out[use.call - from] = this.withInputsCleared(use.call, use.slot + 1);
      }
    }
    return out;
  }
}
