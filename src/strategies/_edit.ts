import { type AssistantMessage, type Message, type ToolCall, type ToolMessage, isAssistant, isTool } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { countMessage, messageTokens, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { StrategyResult } from './types.js';

/** An assistant message with nothing left in it: no content, no reasoning, no refusal and no calls. */
export function isEmptyAssistant(m: AssistantMessage): boolean {
  const noContent = m.content == null || m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
  return noContent && !m.reasoning_content && !m.refusal && !(m.tool_calls && m.tool_calls.length > 0);
}

/**
 * Whether `next` costs fewer tokens than `previous`, counted exactly as the runner counts them. `next` goes into the
 * memo, as the runner counts it again when it is kept; `previous` is usually there already and is not added.
 */
export function fewerTokens(previous: Message, next: Message, tokenizer: Tokenizer): boolean {
  return totalOf(countMessage(next, tokenizer)) < messageTokens(previous, tokenizer);
}

export interface Removal {
  messages: Message[];
  messagesChanged: number;
  messagesRemoved: number;
  /** Calls removed (more than the ids given when an id repeats). */
  callsRemoved: number;
}

/**
 * Removes the given tool calls and their results together, so pairing stays valid. An assistant message left with no
 * calls loses its `tool_calls` field; one left with nothing at all is removed. Other messages are kept as they are.
 */
export function removeToolCalls(messages: readonly Message[], ids: ReadonlySet<string>): Removal {
  if (ids.size === 0) return { messages: messages as Message[], messagesChanged: 0, messagesRemoved: 0, callsRemoved: 0 };
  return removeCalls(messages, { call: (call) => ids.has(call.id), result: (result) => ids.has(result.tool_call_id) });
}

/** Which tool calls and which results to remove: by content (an id) or by where they stand. */
interface CallSelection {
  /** The call in slot `slot` of the `tool_calls` of `messages[message]`. */
  call(call: ToolCall, message: number, slot: number): boolean;
  /** The tool message `messages[index]`. */
  result(result: ToolMessage, index: number): boolean;
}

/**
 * Removes the selected calls and results (select each call with its result, so pairing stays valid). An assistant
 * message left with no calls loses its `tool_calls` field; one left with nothing at all is removed. Every other
 * message is returned as the same object.
 */
export function removeCalls(messages: readonly Message[], select: CallSelection): Removal {
  const out: Message[] = [];
  let messagesChanged = 0;
  let messagesRemoved = 0;
  let callsRemoved = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (isTool(m) && select.result(m, i)) {
      messagesRemoved++;
      continue;
    }
    const calls = isAssistant(m) ? m.tool_calls : undefined;
    const kept = calls ? keptCalls(calls, i, select) : undefined;
    if (!calls || !kept) {
      out.push(m);
      continue;
    }
    callsRemoved += calls.length - kept.length;
    const next = keepingCalls(m as AssistantMessage, kept);
    if (!next) {
      messagesRemoved++;
      continue;
    }
    messagesChanged++;
    out.push(next);
  }
  return { messages: out, messagesChanged, messagesRemoved, callsRemoved };
}

/** `m` with only the calls `kept` (its `tool_calls` key last), or undefined when nothing of it is left to send. */
export function keepingCalls(m: AssistantMessage, kept: ToolCall[]): AssistantMessage | undefined {
  const { tool_calls: _removed, ...rest } = m;
  const next: AssistantMessage = kept.length > 0 ? { ...rest, tool_calls: kept } : rest;
  return isEmptyAssistant(next) ? undefined : next;
}

/** The calls of `messages[message]` that are not selected, or undefined when none is: no copy of a message that keeps them all. */
function keptCalls(calls: readonly ToolCall[], message: number, select: CallSelection): ToolCall[] | undefined {
  let slot = 0;
  while (slot < calls.length && !select.call(calls[slot], message, slot)) slot++;
  if (slot === calls.length) return undefined;
  const kept = calls.slice(0, slot);
  for (slot++; slot < calls.length; slot++) if (!select.call(calls[slot], message, slot)) kept.push(calls[slot]);
  return kept;
}

/** The result of a strategy that changed nothing: the same transcript object. */
export function unchanged(transcript: Transcript, details: Record<string, number>): StrategyResult {
  return { transcript, messagesChanged: 0, messagesRemoved: 0, details };
}

/** A transcript with new messages, everything else kept; the same object when the messages did not change. */
export function withMessages(transcript: Transcript, messages: Message[]): Transcript {
  return messages === transcript.messages ? transcript : { ...transcript, messages };
}
