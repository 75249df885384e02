import type { Message } from '../../model/message.js';
import { type RecordedCall, callOfUsage, embeddedCalls, recordedCall, sessionTotals, usageIsMidStream } from '../../model/recorded.js';
import type { Transcript } from '../../model/transcript.js';
import type { Cost, ModelRates } from './prices.js';

/**
 * The usage a source recorded for its model calls, from the `usage` the adapters put on assistant messages: Claude Code
 * (Anthropic: `input_tokens` uncached, plus `cache_creation_input_tokens` and `cache_read_input_tokens`) and Codex
 * (OpenAI: `input_tokens` in total, of which `cached_input_tokens` were cache reads). What the session really billed,
 * its own compaction and caching included.
 */
export interface RecordedUsage {
  /** Assistant messages that carry a usage record. */
  calls: number;
  /** input_tokens + cache_creation_input_tokens + cache_read_input_tokens, summed. */
  input: number;
  /** input_tokens: input neither written to nor read from the cache. */
  uncachedInput: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
  /** The first recorded call's whole input: the system prompt and tool definitions that the transcript does not hold, plus its first messages. */
  firstCallInput: number;
  /**
   * Of `cacheCreation`, tokens written with the 1-hour TTL (Claude Code's `cache_creation.ephemeral_1h_input_tokens`),
   * billed at twice the input price where the 5-minute ones are at 1.25 times.
   */
  cacheCreation1h: number;
}

/**
 * A transcript's output as its source recorded it and as it was billed: a call whose usage was logged mid-stream (see
 * model/recorded.ts `usageIsMidStream`) is counted from its reply's content instead of its recorded `output_tokens`.
 */
export interface OutputAsBilled {
  /** The recorded `output_tokens`, summed (what ccusage sums). */
  recorded: number;
  /** The final calls' recorded output plus the mid-stream calls' replies counted: what the provider billed. */
  counted: number;
  /** Calls whose usage is a mid-stream snapshot. */
  midStreamCalls: number;
}

/** A transcript's {@link OutputAsBilled}, each mid-stream reply counted by `countReply`; undefined without recorded calls. */
export function outputAsBilled(transcript: Transcript, countReply: (reply: Message) => number): OutputAsBilled | undefined {
  let calls = 0;
  const out: OutputAsBilled = { recorded: 0, counted: 0, midStreamCalls: 0 };
  for (const m of transcript.messages) {
    const call = recordedCall(m);
    if (!call) continue;
    calls++;
    out.recorded += call.output;
    if (usageIsMidStream(transcript, m)) {
      out.midStreamCalls++;
      out.counted += countReply(m);
    } else out.counted += call.output;
  }
  return calls > 0 ? out : undefined;
}

/** The input tokens a recorded call read from the provider's cache, or undefined for a message without usage. */
export function recordedCacheRead(message: Message): number | undefined {
  return recordedCall(message)?.read;
}

/** A recorded call's whole input (cached, written and uncached), or undefined for a message without usage. */
export function recordedPromptTokens(message: Message): number | undefined {
  const call = recordedCall(message);
  return call === undefined ? undefined : call.uncached + call.written + call.read;
}

export function recordedUsage(transcript: Transcript): RecordedUsage | undefined {
  return usageOfCalls(transcript.messages.flatMap((m) => (m.role === 'assistant' ? (recordedCall(m) ?? []) : [])));
}

/** A transcript's recorded usage by the model each call is billed as (`modelOf`), in the order the models first answer. */
export function recordedUsageByModel(transcript: Transcript, modelOf: (m: Message) => string): Record<string, RecordedUsage> {
  const calls: { model: string; call: RecordedCall }[] = [];
  for (const m of transcript.messages) {
    const call = m.role === 'assistant' ? recordedCall(m) : undefined;
    if (call) calls.push({ model: modelOf(m), call });
  }
  return usageByModel(calls);
}

/**
 * A session's recorded totals (model/recorded.ts `sessionTotals`) in the shape of a recorded usage whose calls are not
 * known (`calls` 0, no first call); undefined when the source recorded none.
 */
export function sessionTotalUsage(transcript: Transcript): RecordedUsage | undefined {
  const totals = sessionTotals(transcript);
  if (!totals) return undefined;
  const usage = usageOfCalls([totals.tokens]) as RecordedUsage;
  return { ...usage, calls: 0, firstCallInput: 0 };
}

/** Recorded calls summed by model. */
function usageByModel(calls: readonly { model: string; call: RecordedCall }[]): Record<string, RecordedUsage> {
  const byModel = new Map<string, RecordedCall[]>();
  for (const { model, call } of calls) {
    const list = byModel.get(model);
    if (list) list.push(call);
    else byModel.set(model, [call]);
  }
  return Object.fromEntries([...byModel].map(([model, list]) => [model, usageOfCalls(list)!]));
}

/** One subagent's calls embedded in a transcript's source (see model/recorded.ts `embeddedCalls`), summed. */
export interface EmbeddedUsage extends RecordedUsage {
  agentId: string;
  /** The transcript the subagent's own file becomes: when it is among the inputs, these calls are counted there. */
  transcriptId?: string;
  /** The same calls by the model that answered them (`fallback` for a call that names none). */
  byModel: Record<string, RecordedUsage>;
}

/**
 * The usage of the subagent calls a transcript's source embedded beside its messages, by subagent (none: empty); a call
 * that names no model is billed as `fallback`.
 */
export function embeddedUsage(transcript: Transcript, fallback: string): EmbeddedUsage[] {
  return embeddedCalls(transcript.metadata).flatMap((agent) => {
    const calls = agent.calls.map((c) => ({ model: c.model ?? fallback, call: callOfUsage(c.usage) }));
    const usage = usageOfCalls(calls.map((c) => c.call));
    return usage
      ? [{ agentId: agent.agentId, ...(agent.transcriptId === undefined ? {} : { transcriptId: agent.transcriptId }), ...usage, byModel: usageByModel(calls) }]
      : [];
  });
}

/** Recorded calls summed; undefined without any. */
export function usageOfCalls(calls: readonly RecordedCall[]): RecordedUsage | undefined {
  const r = emptyRecordedUsage();
  for (const call of calls) {
    const input = call.uncached + call.written + call.read;
    if (r.calls === 0) r.firstCallInput = input;
    r.calls++;
    r.uncachedInput += call.uncached;
    r.cacheCreation += call.written;
    r.cacheCreation1h += call.written1h;
    r.cacheRead += call.read;
    r.input += input;
    r.output += call.output;
  }
  return r.calls > 0 ? r : undefined;
}

export function emptyRecordedUsage(): RecordedUsage {
  return { calls: 0, input: 0, uncachedInput: 0, cacheCreation: 0, cacheRead: 0, output: 0, firstCallInput: 0, cacheCreation1h: 0 };
}

/**
 * What one model's recorded usage cost at its rates: with caching as billed, and as if every input token were plain
 * input. Writes are billed by the TTL they were made with and reads at the model's read price, whatever cache the
 * replay beside them assumes.
 */
export function recordedCost(r: RecordedUsage, rates: ModelRates): Cost {
  const out = r.output * rates.output;
  const writes = (r.cacheCreation - r.cacheCreation1h) * rates.cacheWrite5m + r.cacheCreation1h * rates.cacheWrite1h;
  return {
    withoutCache: (r.input * rates.input + out) / 1e6,
    withCache: (r.uncachedInput * rates.input + writes + r.cacheRead * rates.cacheRead + out) / 1e6,
  };
}

/** What one recorded call's input cost with caching at its model's rates, in US dollars: `recordedCost` without the output. */
export function recordedInputCost(call: RecordedCall, rates: ModelRates): number {
  return recordedCost({ ...usageOfCalls([call])!, output: 0 }, rates).withCache;
}
