/**
 * Canonical messages <-> LangChain's `BaseMessage`. Text in parts stays in parts (each part is a block of Anthropic's
 * cache lookback); tool-call arguments travel parsed, and a {@link CallIndex} gives back the original argument strings.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { contentText, type ContentPart } from '../../model/content.js';
import type { AssistantMessage, Message, ToolMessage as CanonicalTool, UserMessage } from '../../model/message.js';
import { type CallIndex, callOf, parseArgs } from '../call-index.js';

type Block = { type: string; text?: string; image_url?: { url: string } | string };
type ThinkingBlock = { type: string; thinking?: unknown; reasoning?: unknown };

function textBlocks(content: string | readonly ContentPart[] | null | undefined): string | { type: 'text'; text: string }[] {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (content.length === 1 && content[0].type === 'text') return content[0].text;
  return content.flatMap((p) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text }] : []));
}

/** One canonical message as a LangChain message (undefined for a role LangChain has no equivalent of). */
export function toLangChainMessage(m: Message): BaseMessage | undefined {
  if (m.role === 'system' || m.role === 'developer') return new SystemMessage(contentText(m.content as string));
  if (m.role === 'user') {
    const c = (m as UserMessage).content;
    return new HumanMessage({
      content:
        typeof c === 'string'
          ? c
          : c.map((p) =>
              p.type === 'image_url' ? { type: 'image_url', image_url: { url: p.image_url.url } } : { type: 'text', text: p.type === 'text' ? p.text : '' },
            ),
    });
  }
  if (m.role === 'assistant') {
    const a = m as AssistantMessage;
    return new AIMessage({
      content: textBlocks(a.content),
      tool_calls: (a.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: parseArgs(c.function.arguments) as Record<string, unknown>,
        type: 'tool_call' as const,
      })),
      additional_kwargs: a.reasoning_content ? { reasoning_content: a.reasoning_content } : {},
    });
  }
  if (m.role === 'tool') {
    const tm = m as CanonicalTool;
    return new ToolMessage({ content: textBlocks(tm.content), tool_call_id: tm.tool_call_id, status: statusOf(tm.is_error) });
  }
  return undefined;
}

/** A ToolMessage's `status` is optional, as the canonical flag is: `success` is an explicit `is_error: false`. */
function statusOf(isError: boolean | undefined): 'error' | 'success' | undefined {
  return isError === undefined ? undefined : isError ? 'error' : 'success';
}

export function toLangChain(messages: readonly Message[]): BaseMessage[] {
  return messages.flatMap((m) => toLangChainMessage(m) ?? []);
}

function canonicalText(content: BaseMessage['content']): string | { type: 'text'; text: string }[] {
  if (typeof content === 'string') return content;
  const blocks = (content as Block[]).flatMap((p) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text ?? '' }] : []));
  return blocks.length === 1 ? blocks[0].text : blocks;
}

/**
 * An AIMessage's reasoning as the canonical fields hold it: `additional_kwargs.reasoning_content` (OpenAI-compatible
 * servers) and the thinking blocks of its content (ChatAnthropic's `thinking`, LangChain's standard `reasoning`), joined
 * by a blank line; blocks without text (a signature only) and `redacted_thinking` blocks are counted, as the Claude Code
 * reader counts them, since their text is not there to count.
 */
function reasoningOf(ai: AIMessage): { reasoning_content?: string; thinking_blocks_without_text?: number; redacted_thinking_blocks?: number } {
  const texts: string[] = [];
  const kwargs = ai.additional_kwargs.reasoning_content;
  if (typeof kwargs === 'string' && kwargs !== '') texts.push(kwargs);
  let withoutText = 0;
  let redacted = 0;
  for (const b of typeof ai.content === 'string' ? [] : (ai.content as ThinkingBlock[])) {
    const text = b.type === 'thinking' ? b.thinking : b.type === 'reasoning' ? b.reasoning : undefined;
    if (typeof text === 'string') {
      if (text !== '') texts.push(text);
      else withoutText++;
    } else if (b.type === 'redacted_thinking') redacted++;
  }
  const out: ReturnType<typeof reasoningOf> = {};
  if (texts.length > 0) out.reasoning_content = texts.join('\n\n');
  if (withoutText > 0) out.thinking_blocks_without_text = withoutText;
  if (redacted > 0) out.redacted_thinking_blocks = redacted;
  return out;
}

/** One LangChain message as a canonical message (undefined for one with no canonical role). */
export function fromLangChainMessage(m: BaseMessage | undefined, index?: CallIndex): Message | undefined {
  // trimMessages returns [undefined] when even the system message alone is over the budget.
  if (m === undefined) return undefined;
  const type = m.getType();
  if (type === 'system') return { role: 'system', content: contentText(canonicalText(m.content)) };
  if (type === 'human') {
    const c = m.content as string | Block[];
    return {
      role: 'user',
      content:
        typeof c === 'string'
          ? c
          : c.map((p): ContentPart => {
              if (p.type !== 'image_url') return { type: 'text', text: p.text ?? '' };
              return { type: 'image_url', image_url: { url: typeof p.image_url === 'string' ? p.image_url : (p.image_url?.url ?? '') } };
            }),
    };
  }
  if (type === 'ai') {
    const ai = m as AIMessage;
    const text = canonicalText(ai.content);
    const a: AssistantMessage = { role: 'assistant', content: text === '' || (Array.isArray(text) && text.length === 0) ? null : text };
    Object.assign(a, reasoningOf(ai));
    const calls = (ai.tool_calls ?? []).map((c) => callOf(c.id ?? '', c.name, c.args, index));
    if (calls.length > 0) a.tool_calls = calls;
    return a;
  }
  if (type === 'tool') {
    const tm = m as ToolMessage;
    const c: CanonicalTool = { role: 'tool', tool_call_id: tm.tool_call_id, content: canonicalText(tm.content) };
    if (tm.status !== undefined) c.is_error = tm.status === 'error';
    return c;
  }
  return undefined;
}

export function fromLangChain(messages: readonly (BaseMessage | undefined)[], index?: CallIndex): Message[] {
  return messages.flatMap((m) => fromLangChainMessage(m, index) ?? []);
}
