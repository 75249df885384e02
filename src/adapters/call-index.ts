import type { AssistantMessage, Message, ToolCall } from '../model/message.js';

/**
 * The tool calls of canonical messages by id. The runtimes hold a call's arguments parsed; converting back with the
 * original call keeps its argument string (and so its token count) exactly.
 */
export interface CallIndex {
  calls: Map<string, ToolCall>;
}

export function indexCalls(messages: readonly Message[]): CallIndex {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) if (m.role === 'assistant') for (const c of (m as AssistantMessage).tool_calls ?? []) calls.set(c.id, c);
  return { calls };
}

/** Parsed arguments; a string that is not JSON travels as `{ __raw }`, which {@link callOf} gives back unchanged. */
export function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return { __raw: json };
  }
}

/** The canonical call of a runtime's call: the indexed original, or one made from the parsed arguments. */
export function callOf(id: string, name: string, input: unknown, index?: CallIndex): ToolCall {
  const original = index?.calls.get(id);
  if (original) return original;
  const raw = (input as { __raw?: unknown } | null)?.__raw;
  const args = typeof raw === 'string' && Object.keys(input as object).length === 1 ? raw : JSON.stringify(input ?? {});
  return { id, type: 'function', function: { name, arguments: args } };
}
