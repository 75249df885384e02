import { type Message, isAssistant, isTool } from '../model/message.js';

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
