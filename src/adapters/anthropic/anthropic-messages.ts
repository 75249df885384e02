/**
 * Canonical messages <-> the Messages API's `MessageParam`. A user message's `tool_result` blocks are canonical tool
 * messages and its other blocks one user message; an assistant's thinking is its reasoning, its text blocks its text
 * parts and its `tool_use` blocks its calls. Blocks without a canonical form (redacted thinking, documents...) are not
 * seen by the manager; the adapter sends them with their message as long as the manager leaves it whole.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { contentText, type ContentPart } from '../../model/content.js';
import type { AssistantMessage, Message, ToolMessage, UserMessage } from '../../model/message.js';
import { type CallIndex, callOf, parseArgs } from '../call-index.js';
import { thinkingWithoutText, withoutText } from '../thinking.js';

type Block = Anthropic.ContentBlockParam;
type ToolResultContent = Exclude<Anthropic.ToolResultBlockParam['content'], string | undefined>;

/** Text in parts stays in parts; one part is a string. */
function textOf(blocks: readonly { type: string; text?: string }[]): string | { type: 'text'; text: string }[] {
  const texts = blocks.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text ?? '' }] : []));
  return texts.length === 1 ? texts[0].text : texts;
}

function imageUrl(block: Anthropic.ImageBlockParam): string {
  const s = block.source;
  return s.type === 'url' ? s.url : s.type === 'base64' ? `data:${s.media_type};base64,${s.data}` : '';
}

/** One canonical piece of a runtime message, and the blocks it came from. */
export interface Piece {
  message: Message;
  blocks: readonly Block[];
}

/** One MessageParam as canonical messages: a user message gives one tool message per `tool_result`, then its other blocks. */
export function fromAnthropicMessage(m: Anthropic.MessageParam, index?: CallIndex): Piece[] {
  if (typeof m.content === 'string') {
    const message: Message = m.role === 'user' ? { role: 'user', content: m.content } : { role: 'assistant', content: m.content === '' ? null : m.content };
    return [{ message, blocks: [] }];
  }
  if (m.role === 'assistant') {
    const thoughts = m.content.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : []));
    const reasoning = thoughts.filter((t) => t !== '').join('\n\n');
    const text = textOf(m.content as { type: string; text?: string }[]);
    const calls = m.content.flatMap((b) => (b.type === 'tool_use' ? [callOf(b.id, b.name, b.input, index)] : []));
    const a: AssistantMessage = { role: 'assistant', content: text === '' || text.length === 0 ? null : text };
    if (reasoning !== '') a.reasoning_content = reasoning;
    withoutText(a, thoughts.filter((t) => t === '').length);
    if (calls.length > 0) a.tool_calls = calls;
    return [{ message: a, blocks: m.content }];
  }
  const pieces: Piece[] = [];
  const rest: Block[] = [];
  for (const b of m.content) {
    if (b.type !== 'tool_result') {
      rest.push(b);
      continue;
    }
    const content = typeof b.content === 'string' || b.content === undefined ? (b.content ?? '') : textOf(b.content as { type: string; text?: string }[]);
    const tm: ToolMessage = { role: 'tool', tool_call_id: b.tool_use_id, content };
    // `false` is kept: it says the tool did not fail, where no flag leaves the first line to tell (see model/tool-outcome.ts).
    if (typeof b.is_error === 'boolean') tm.is_error = b.is_error;
    pieces.push({ message: tm, blocks: [b] });
  }
  if (rest.length > 0) {
    const content: ContentPart[] = rest.flatMap((b): ContentPart[] => {
      if (b.type === 'text') return [{ type: 'text', text: b.text }];
      if (b.type === 'image') return [{ type: 'image_url', image_url: { url: imageUrl(b) } }];
      return [];
    });
    const user: UserMessage = { role: 'user', content: content.length === 1 && content[0].type === 'text' ? content[0].text : content };
    pieces.push({ message: user, blocks: rest });
  }
  return pieces;
}

export function fromAnthropic(messages: readonly Anthropic.MessageParam[], index?: CallIndex): Message[] {
  return messages.flatMap((m) => fromAnthropicMessage(m, index).map((p) => p.message));
}

function textBlocks(content: string | readonly ContentPart[] | null | undefined): Anthropic.TextBlockParam[] {
  if (content === null || content === undefined || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((p) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text }] : []));
}

/** A canonical tool result as a `tool_result` block. */
export function toolResultBlock(m: ToolMessage): Anthropic.ToolResultBlockParam {
  const block: Anthropic.ToolResultBlockParam = {
    type: 'tool_result',
    tool_use_id: m.tool_call_id,
    content: typeof m.content === 'string' ? m.content : (textBlocks(m.content) as ToolResultContent),
  };
  if (typeof m.is_error === 'boolean') block.is_error = m.is_error;
  return block;
}

/** One canonical message as the blocks of a MessageParam of `role` (a system message becomes user text). */
export function toAnthropicBlocks(m: Message): { role: 'user' | 'assistant'; blocks: Block[] } {
  if (m.role === 'tool') return { role: 'user', blocks: [toolResultBlock(m as ToolMessage)] };
  if (m.role === 'assistant') {
    const a = m as AssistantMessage;
    const blocks: Block[] = [];
    // Thinking goes back without the signature the API checks: only the manager's own messages are rebuilt so.
    for (let i = 0; i < thinkingWithoutText(a); i++) blocks.push({ type: 'thinking', thinking: '', signature: '' });
    if (a.reasoning_content) blocks.push({ type: 'thinking', thinking: a.reasoning_content, signature: '' });
    blocks.push(...textBlocks(a.content));
    for (const c of a.tool_calls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: parseArgs(c.function.arguments) });
    return { role: 'assistant', blocks };
  }
  const content = messageParts(m);
  return { role: 'user', blocks: content };
}

function messageParts(m: Message): Block[] {
  const content = (m as UserMessage).content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: contentText(content) }];
  return content.map((p): Block =>
    p.type === 'image_url' ? { type: 'image', source: { type: 'url', url: p.image_url.url } } : { type: 'text', text: contentText([p]) },
  );
}

/** Canonical messages as MessageParams: consecutive pieces of one role share a message, tool results first. */
export function toAnthropic(messages: readonly Message[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    const { role, blocks } = toAnthropicBlocks(m);
    const last = out.at(-1);
    if (
      last &&
      last.role === role &&
      role === 'user' &&
      m.role === 'tool' &&
      Array.isArray(last.content) &&
      last.content.every((b) => b.type === 'tool_result')
    ) {
      (last.content as Block[]).push(...blocks);
    } else out.push({ role, content: blocks });
  }
  return out;
}
