import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { collapse, contentParts, functionResponseOf, partList, thoughtText } from './_gemini-parts.js';
import { isObject } from './_items.js';

/**
 * One Gemini API `Content` (`{role, parts}`), as the model saw it, as canonical messages: a `model` turn is one
 * assistant message (text, thought parts as `reasoning_content`, `functionCall` parts as tool calls); a `user` turn is
 * one tool message per `functionResponse` part, then a user message with the rest of its parts, if any. A call without
 * an id gets `<idPrefix>#<k>`; a response without one answers the first earlier call of its name still unanswered.
 */
export function contentMessages(content: Record<string, unknown>, idPrefix: string, open: Map<string, string[]>): Message[] {
  const parts = partList(content.parts);
  if (content.role === 'model') {
    const text = contentParts(parts).filter((p) => !(p.type === 'text' && p.text === ''));
    const message: AssistantMessage = { role: 'assistant', content: text.length === 0 ? null : (collapse(text) as AssistantMessage['content']) };
    const reasoning = thoughtText(parts);
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    const calls: ToolCall[] = [];
    for (const [k, part] of parts.entries()) {
      const fc = part.functionCall;
      if (!isObject(fc)) continue;
      const id = typeof fc.id === 'string' && fc.id !== '' ? fc.id : `${idPrefix}#${k}`;
      const name = typeof fc.name === 'string' ? fc.name : 'unknown';
      calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(fc.args ?? {}) } });
      open.set(name, [...(open.get(name) ?? []), id]);
    }
    if (calls.length > 0) message.tool_calls = calls;
    return [message];
  }
  const out: Message[] = [];
  for (const part of parts) {
    const fr = functionResponseOf(part);
    if (!fr) continue;
    const name = fr.name ?? 'unknown';
    const waiting = open.get(name) ?? [];
    const id = fr.id ?? waiting[0] ?? `${idPrefix}#${name}`;
    open.set(
      name,
      waiting.filter((w) => w !== id),
    );
    const tool: ToolMessage = { role: 'tool', tool_call_id: id, name, content: fr.text };
    if (fr.isError) tool.is_error = true;
    out.push(tool);
  }
  const rest = contentParts(parts);
  if (rest.length > 0 || out.length === 0) out.push({ role: 'user', content: rest.length === 0 ? '' : collapse(rest) });
  return out;
}
