/**
 * Canonical messages as the runtimes hold them, and what each message says once a runtime edited it, so a replayed
 * prompt and the runtime's own prompt compare message by message.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
import { contentText } from '../../src/model/content.js';
import { type Message, isAssistant, isTool, messageContent } from '../../src/model/message.js';

const text = (m: Message) => contentText(messageContent(m) as Parameters<typeof contentText>[0]);

/**
 * The messages with each step's results in the order of its calls, as both runtimes hold them (LangChain's tool node
 * and the AI SDK return them so), where a recorded session may have logged them as they finished.
 */
export function inCallOrder(messages: readonly Message[]): Message[] {
  const out = [...messages];
  let slotOf = new Map<string, number>();
  for (let i = 0; i < out.length; i++) {
    const m = out[i];
    if (isAssistant(m)) slotOf = new Map((m.tool_calls ?? []).map((c, slot) => [c.id, slot]));
    if (!isTool(m) || (i > 0 && isTool(out[i - 1]))) continue;
    let end = i;
    while (end < out.length && isTool(out[end])) end++;
    const slot = (r: Message) => slotOf.get((r as { tool_call_id: string }).tool_call_id) ?? Number.MAX_SAFE_INTEGER;
    out.splice(i, end - i, ...out.slice(i, end).sort((a, b) => slot(a) - slot(b)));
  }
  return out;
}

/** The AI SDK's messages as its steps leave them: a step's tool results are one `tool` message. */
export function groupToolResults(messages: readonly ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (m.role === 'tool' && last?.role === 'tool') out[out.length - 1] = { ...last, content: [...last.content, ...m.content] };
    else out.push(m);
  }
  return out;
}

/** ModelMessages as plain data: the SDK's own messages carry `providerOptions: undefined` where a converted one has none. */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A user or system message as a LangChain agent receives it (its text). */
export function toLangChainInput(m: Message): BaseMessage {
  return m.role === 'system' || m.role === 'developer' ? new SystemMessage(text(m)) : new HumanMessage(text(m));
}

/** A recorded reply as a chat model returns it: its text and its tool calls, arguments parsed. */
export function toLangChainReply(m: Message): AIMessage {
  if (!isAssistant(m)) throw new Error(`expected an assistant message, got ${m.role}`);
  return new AIMessage({
    content: text(m),
    tool_calls: (m.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      args: JSON.parse(c.function.arguments) as Record<string, unknown>,
      type: 'tool_call' as const,
    })),
  });
}

/** What a message says: its role, its text, its tool calls (arguments parsed) or the call its result answers. */
export interface Said {
  role: string;
  text: string;
  calls?: { id: string; name: string; args: unknown }[];
  callId?: string;
}

export function saidOf(m: Message): Said {
  const role = m.role === 'assistant' ? 'ai' : m.role === 'user' ? 'human' : m.role;
  const said: Said = { role, text: text(m) };
  if (isAssistant(m)) said.calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) as unknown }));
  if (isTool(m)) said.callId = m.tool_call_id;
  return said;
}

export function saidOfLangChain(m: BaseMessage): Said {
  const content = m.content as string | { type: string; text?: string }[];
  const said: Said = {
    role: m.getType(),
    text: typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join(''),
  };
  if (AIMessage.isInstance(m)) said.calls = (m.tool_calls ?? []).map((c) => ({ id: c.id!, name: c.name, args: c.args }));
  if (m.getType() === 'tool') said.callId = (m as unknown as { tool_call_id: string }).tool_call_id;
  return said;
}
