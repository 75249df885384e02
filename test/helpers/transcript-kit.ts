import { expect } from 'vitest';
import type { ContentPart } from '../../src/model/content.js';
import type { AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations, lastUserRequestIndex } from '../../src/model/validity.js';
import { RefSink } from '../../src/refs/ref-store.js';
import type { Strategy, StrategyContext, StrategyResult } from '../../src/strategies/types.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

/** Small builders for hand-written transcripts. */
export const sys = (content: string): SystemMessage => ({ role: 'system', content });
export const user = (content: string | ContentPart[]): UserMessage => ({ role: 'user', content });
export const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
export function assistant(content: string | null, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: 'assistant', content, ...extra };
}
export function result(id: string, content: string | ContentPart[], extra: Partial<ToolMessage> = {}): ToolMessage {
  return { role: 'tool', tool_call_id: id, content, ...extra };
}
export function transcript(messages: Message[], extra: Partial<Transcript> = {}): Transcript {
  return { id: 't1', messages, ...extra };
}

/** Freezes a value and everything in it, so a strategy that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function makeContext(options: { refs?: boolean } = {}): StrategyContext {
  return { tokenizer: getTokenizer('o200k_base'), refs: options.refs === false ? null : new RefSink(), window: 200_000 };
}

/** Parses `config` with the strategy's own schema (so defaults apply) and applies it to a frozen copy of the input. */
/**
 * The protected tail as it was before it became a budget: the last turn, whole. Unit tests on small hand-made
 * transcripts use it, so the middle they test is not all inside the default tail (the last 10 messages and results).
 */
export const LAST_TURN = { keepLast: 1, keepMessages: 0, keepResults: 0 } as const;
/** The same frame as CLI flags. */
export const LAST_TURN_FLAGS = ['--keep-last', '1', '--keep-messages', '0', '--keep-results', '0'];
/** The same for mask-observations, whose own subject is the last `keepResults` results (default 10). */
export const LAST_TURN_MASK = { keepLast: 1, keepMessages: 0 } as const;

export function run<S extends Strategy>(strategy: S, input: Transcript, config: Record<string, unknown> = {}, ctx = makeContext()): StrategyResult {
  return strategy.apply(deepFreeze(input), strategy.config.parse(config) as never, ctx);
}

/** Applying the strategy to its own output changes nothing more. */
export function expectIdempotent(strategy: Strategy, output: Transcript, config: Record<string, unknown> = {}): void {
  const again = run(strategy, output, config);
  expect(again.transcript).toEqual(output);
  expect(again.messagesChanged + again.messagesRemoved).toBe(0);
  again.transcript.messages.forEach((m, i) => expect(m).toBe(output.messages[i]));
}

/** Counts violations by kind, so "no new violations" can be checked on inputs that already had some. */
export function violationKinds(messages: readonly Message[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const v of findViolations(messages)) kinds[v.kind] = (kinds[v.kind] ?? 0) + 1;
  return kinds;
}

/**
 * The invariants every strategy keeps: no new pairing violation of any kind, the last user request is the very same
 * object, and tokens never increase.
 */
export function expectInvariants(before: Transcript, after: Transcript): void {
  const was = violationKinds(before.messages);
  for (const [kind, n] of Object.entries(violationKinds(after.messages))) expect(n, kind).toBeLessThanOrEqual(was[kind] ?? 0);
  const last = lastUserRequestIndex(before.messages);
  if (last >= 0) expect(after.messages[lastUserRequestIndex(after.messages)]).toBe(before.messages[last]);
  const tok = getTokenizer('o200k_base');
  expect(countTranscript(after, tok).total).toBeLessThanOrEqual(countTranscript(before, tok).total);
}
