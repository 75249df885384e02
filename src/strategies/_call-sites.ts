import { type AssistantMessage, type Message, type ToolCall, type ToolMessage, isAssistant, isTool } from '../model/message.js';
import { NO_RESULT_TEXT } from '../model/repair.js';
import { isFailedResult } from '../model/tool-outcome.js';
import { type Removal, keepingCalls } from './_edit.js';
import { isMaskedFailure } from './_placeholders.js';

/**
 * One tool call and where its result is, found by position rather than by id: real transcripts repeat call ids
 * (tau-bench reuses the id of an identical lookup), so an id alone does not say which call a result answers.
 */
export interface CallSite {
  /** Order of the call in the transcript (0-based, counting every call of every message). */
  seq: number;
  /** Index of the assistant message that made the call. */
  message: number;
  /** Index of the call in that message's `tool_calls`. */
  slot: number;
  call: ToolCall;
  /** Index of the tool message holding the result (the first one with the call's id in the block after the call), or -1. */
  result: number;
}

/** Every tool call in order, each paired with its result in the tool block that follows its assistant message. */
export function callSites(messages: readonly Message[]): CallSite[] {
  const sites: CallSite[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isAssistant(m) || !m.tool_calls || m.tool_calls.length === 0) continue;
    const calls = m.tool_calls;
    let blockEnd = i + 1;
    while (blockEnd < messages.length && isTool(messages[blockEnd])) blockEnd++;
    // Results already paired with an earlier call of this message; a message of one call needs no record.
    const claimed = calls.length > 1 ? new Set<number>() : undefined;
    for (let slot = 0; slot < calls.length; slot++) {
      const call = calls[slot];
      let result = -1;
      for (let j = i + 1; j < blockEnd; j++) {
        if ((messages[j] as ToolMessage).tool_call_id === call.id && !claimed?.has(j)) {
          result = j;
          claimed?.add(j);
          break;
        }
      }
      sites.push({ seq: sites.length, message: i, slot, call, result });
    }
  }
  return sites;
}

/**
 * The tool reported a failure (its `is_error` flag, or for producers that set none, a first line that reads as one:
 * see isFailedResult, or a mask that kept the error line), or no result was recorded: such a call proves nothing about
 * the tool's state. The mask counts so that compacting a compacted transcript again changes nothing.
 */
export function failedOrMissing(messages: readonly Message[], site: CallSite): boolean {
  if (site.result < 0) return true;
  const r = messages[site.result] as ToolMessage;
  return r.content === NO_RESULT_TEXT || isFailedResult(r) || (typeof r.content === 'string' && isMaskedFailure(r.content));
}

/**
 * Removes the given calls with their results. An assistant message left with no calls loses its `tool_calls` field; one
 * left with nothing at all goes too. Every other message is returned as the same object, copied over without being
 * looked at: a transcript's messages come in many shapes, and reading each one's role is what a pass over all costs.
 */
export function removeSites(messages: readonly Message[], sites: readonly CallSite[]): Removal {
  if (sites.length === 0) return { messages: messages as Message[], messagesChanged: 0, messagesRemoved: 0, callsRemoved: 0 };
  // By message index: the slots of the calls it loses (an assistant message), or null (a result that goes).
  const touched = new Map<number, number[] | null>();
  for (const s of sites) {
    const slots = touched.get(s.message);
    if (slots) slots.push(s.slot);
    else touched.set(s.message, [s.slot]);
    if (s.result >= 0) touched.set(s.result, null);
  }
  const out: Message[] = [];
  let messagesChanged = 0;
  let messagesRemoved = 0;
  let callsRemoved = 0;
  let from = 0;
  for (const i of [...touched.keys()].sort((a, b) => a - b)) {
    for (; from < i; from++) out.push(messages[from]);
    from = i + 1;
    const slots = touched.get(i);
    if (!slots) {
      messagesRemoved++;
      continue;
    }
    const m = messages[i] as AssistantMessage;
    const calls = m.tool_calls ?? [];
    const kept = calls.filter((_call, slot) => !slots.includes(slot));
    callsRemoved += calls.length - kept.length;
    const next = keepingCalls(m, kept);
    if (!next) {
      messagesRemoved++;
      continue;
    }
    messagesChanged++;
    out.push(next);
  }
  for (; from < messages.length; from++) out.push(messages[from]);
  return { messages: out, messagesChanged, messagesRemoved, callsRemoved };
}
