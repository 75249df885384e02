import { type Message, isAssistant, isTool, isUser } from './message.js';

type ViolationKind =
  | 'missing_result' // a tool call with no tool message
  | 'duplicate_result' // a tool call with more than one tool message
  | 'orphan_result' // a tool message whose call does not precede it
  | 'misplaced_result' // a tool message not in the block right after its assistant message
  | 'duplicate_call_id'; // two tool calls share an id

export interface Violation {
  kind: ViolationKind;
  /** Index of the offending message. */
  index: number;
  toolCallId: string;
}

/**
 * Checks the structure every strategy must keep: each tool call has exactly one result, each result its call, and a
 * call's results come in the block of tool messages directly after the assistant message that made the call.
 */
export function findViolations(messages: readonly Message[]): Violation[] {
  const violations: Violation[] = [];
  const callSeen = new Set<string>();
  const resultCount = new Map<string, number>();
  let open = new Set<string>(); // calls of the latest assistant message, valid for the tool block that follows
  let pending: { id: string; index: number }[] = [];
  const closeBlock = () => {
    for (const call of pending) if (!resultCount.has(call.id)) violations.push({ kind: 'missing_result', index: call.index, toolCallId: call.id });
    pending = [];
    open = new Set();
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (isTool(m)) {
      const id = m.tool_call_id;
      const n = resultCount.get(id) ?? 0;
      resultCount.set(id, n + 1);
      if (!callSeen.has(id)) violations.push({ kind: 'orphan_result', index: i, toolCallId: id });
      else if (n > 0) violations.push({ kind: 'duplicate_result', index: i, toolCallId: id });
      else if (!open.has(id)) violations.push({ kind: 'misplaced_result', index: i, toolCallId: id });
      continue;
    }
    closeBlock();
    if (isAssistant(m) && m.tool_calls) {
      for (const call of m.tool_calls) {
        if (callSeen.has(call.id)) violations.push({ kind: 'duplicate_call_id', index: i, toolCallId: call.id });
        callSeen.add(call.id);
        open.add(call.id);
        pending.push({ id: call.id, index: i });
      }
    }
  }
  closeBlock();
  return violations;
}

/**
 * Index of the last user request, or -1. In the canonical model tool results are `tool` messages, so every `user`
 * message is a request. Strategies must keep it intact.
 */
export function lastUserRequestIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (isUser(messages[i])) return i;
  return -1;
}
