import { type Message, isAssistant } from '../model/message.js';

interface IndexedCall {
  name: string;
  arguments: string;
  /** Index of the assistant message that made the call. */
  index: number;
}

/** Every tool call by id (the first one when an id repeats). */
export function indexToolCalls(messages: readonly Message[]): Map<string, IndexedCall> {
  const calls = new Map<string, IndexedCall>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isAssistant(m) || !m.tool_calls) continue;
    for (const call of m.tool_calls) {
      if (!calls.has(call.id)) calls.set(call.id, { name: call.function.name, arguments: call.function.arguments, index: i });
    }
  }
  return calls;
}

/** The tool a result answers: its call's name, else the result's own `name` (tau-bench), else `unknown`. */
export function toolNameOf(calls: ReadonlyMap<string, IndexedCall>, result: { tool_call_id: string; name?: string }): string {
  return calls.get(result.tool_call_id)?.name ?? result.name ?? 'unknown';
}
