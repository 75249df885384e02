import { type Message, type ToolMessage, isAssistant, isTool } from './message.js';

/** The content of the tool message inserted for a call that has no result in the source. */
export const NO_RESULT_TEXT = '[no result recorded]';

interface PairingRepairs {
  /** Calls with no result: a `NO_RESULT_TEXT` tool message was inserted. */
  missingResultFilled: number;
  /** Results whose call does not exist anywhere: dropped. */
  orphanResultDropped: number;
  /** Second and later results for the same call: dropped. */
  duplicateResultDropped: number;
  /** Results moved to the block right after their call. */
  resultMoved: number;
}

interface RepairResult {
  messages: Message[];
  repairs: PairingRepairs;
  /** The tool messages dropped (orphans and duplicates), in source order, so callers can keep them elsewhere. */
  dropped: ToolMessage[];
}

export function noRepairs(): PairingRepairs {
  return { missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 };
}

function repairCount(r: PairingRepairs): number {
  return r.missingResultFilled + r.orphanResultDropped + r.duplicateResultDropped + r.resultMoved;
}

/**
 * Makes tool pairing valid, the documented way: every call gets exactly one result placed in the tool block right
 * after its assistant message, in call order. A result found elsewhere is moved there; a call with no result gets a
 * `[no result recorded]` tool message; results with no call and extra results for a call are dropped. When a call id
 * repeats, the k-th call with that id takes the k-th result with it. Messages that need no change are returned as
 * the same objects, and a valid transcript comes back as the same array.
 */
export function repairPairing(messages: readonly Message[]): RepairResult {
  if (pairedInPlace(messages)) return { messages: messages as Message[], repairs: noRepairs(), dropped: [] };
  const repairs = noRepairs();
  const results = new Map<string, { message: ToolMessage; index: number }[]>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isTool(m)) continue;
    let list = results.get(m.tool_call_id);
    if (!list) results.set(m.tool_call_id, (list = []));
    list.push({ message: m, index: i });
  }
  const used = new Set<ToolMessage>();
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (isTool(m)) continue;
    out.push(m);
    if (!isAssistant(m) || !m.tool_calls) continue;
    for (const call of m.tool_calls) {
      const next = results.get(call.id)?.shift();
      if (next) {
        used.add(next.message);
        out.push(next.message);
        continue;
      }
      repairs.missingResultFilled++;
      out.push({ role: 'tool', tool_call_id: call.id, content: NO_RESULT_TEXT });
    }
  }
  const dropped: ToolMessage[] = [];
  for (const m of messages) {
    if (!isTool(m) || used.has(m)) continue;
    dropped.push(m);
    if (hasCall(messages, m.tool_call_id)) repairs.duplicateResultDropped++;
    else repairs.orphanResultDropped++;
  }
  const inPlace = resultsInPlace(messages);
  for (const m of used) if (!inPlace.has(m)) repairs.resultMoved++;
  if (repairCount(repairs) === 0) return { messages: messages as Message[], repairs, dropped };
  return { messages: out, repairs, dropped };
}

/**
 * Gives every tool call a unique id. Some producers reuse an id for a later, different call (tau-bench's recorded
 * runs reuse 73 ids); each such call gets `<id>~<n>`, and so does the result that answers it in the tool block right
 * after it (the k-th result with that id in the block answers the k-th call with that id). Messages that need no
 * change are returned as the same objects.
 */
export function renameDuplicateCallIds(messages: readonly Message[]): { messages: Message[]; renamed: number } {
  const all = new Set<string>();
  for (const m of messages) if (isAssistant(m)) for (const call of m.tool_calls ?? []) all.add(call.id);
  const seen = new Set<string>();
  let renamed = 0;
  let targets = new Map<string, string[]>();
  const out: Message[] = [];
  for (const m of messages) {
    if (isTool(m)) {
      const next = targets.get(m.tool_call_id)?.shift();
      out.push(next === undefined || next === m.tool_call_id ? m : { ...m, tool_call_id: next });
      continue;
    }
    targets = new Map();
    if (!isAssistant(m) || !m.tool_calls) {
      out.push(m);
      continue;
    }
    let changed = false;
    const calls = m.tool_calls.map((call) => {
      let id = call.id;
      if (seen.has(id)) {
        let n = 2;
        while (all.has(`${call.id}~${n}`) || seen.has(`${call.id}~${n}`)) n++;
        id = `${call.id}~${n}`;
        renamed++;
        changed = true;
      }
      seen.add(id);
      let list = targets.get(call.id);
      if (!list) targets.set(call.id, (list = []));
      list.push(id);
      return id === call.id ? call : { ...call, id };
    });
    out.push(changed ? { ...m, tool_calls: calls } : m);
  }
  return { messages: renamed > 0 ? out : (messages as Message[]), renamed };
}

/**
 * Whether every call id is unique and every call has exactly one result in the tool block right after its assistant
 * message (in any order), with no other tool message anywhere: the usual case, which repairPairing returns as it is.
 * It is checked first, in one pass and with one set per tool block, because a pipeline repairs before and after its
 * steps and a context manager on every model call.
 */
export function pairedInPlace(messages: readonly Message[]): boolean {
  // One map for the whole pass, no set per block: a call id maps to the number of the block that made it, and to
  // ANSWERED once its result is seen, so a second result or a result outside its block fails the lookup.
  const blockOf = new Map<string, number>();
  let block = 0;
  let open = 0;
  for (const m of messages) {
    if (isTool(m)) {
      if (block === 0 || blockOf.get(m.tool_call_id) !== block) return false;
      blockOf.set(m.tool_call_id, ANSWERED);
      open--;
      continue;
    }
    if (open > 0) return false;
    block = 0;
    if (!isAssistant(m) || !m.tool_calls) continue;
    block = blockOf.size + 1;
    for (const call of m.tool_calls) {
      if (blockOf.has(call.id)) return false;
      blockOf.set(call.id, block);
    }
    open = m.tool_calls.length;
  }
  return open === 0;
}

const ANSWERED = -1;

/** Results that sit in the tool block right after the assistant message that made their call (first result only). */
function resultsInPlace(messages: readonly Message[]): Set<Message> {
  const inPlace = new Set<Message>();
  let open = new Set<string>();
  for (const m of messages) {
    if (isTool(m)) {
      if (open.delete(m.tool_call_id)) inPlace.add(m);
      continue;
    }
    open = new Set(isAssistant(m) && m.tool_calls ? m.tool_calls.map((c) => c.id) : []);
  }
  return inPlace;
}

function hasCall(messages: readonly Message[], id: string): boolean {
  return messages.some((m) => isAssistant(m) && m.tool_calls?.some((c) => c.id === id));
}
