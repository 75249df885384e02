/**
 * Canonical transcripts <-> the peers' message types (Vercel AI SDK `ModelMessage`, LangChain `BaseMessage`), so the
 * peers run on the same transcripts and their output is counted by tcompact's own tokenizer on the canonical form.
 * Tool-call arguments travel as parsed objects in both libraries; the original argument strings are kept by call id so
 * a round trip without pruning gives back exactly the same token count.
 */
import type { ModelMessage } from 'ai';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { contentText, type ContentPart } from '../../src/model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage as CanonicalTool, UserMessage } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';

export interface CallIndex {
  /** Original call by id: name and argument string. */
  calls: Map<string, ToolCall>;
}

export function indexCalls(t: Transcript): CallIndex {
  const calls = new Map<string, ToolCall>();
  for (const m of t.messages) if (m.role === 'assistant') for (const c of (m as AssistantMessage).tool_calls ?? []) calls.set(c.id, c);
  return { calls };
}

function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return { __raw: json };
  }
}

type UserPart = { type: 'text'; text: string } | { type: 'image'; image: string } | { type: 'file'; data: string; mediaType: string };

function userParts(content: UserMessage['content']): string | UserPart[] {
  if (typeof content === 'string') return content;
  return content.map((p: ContentPart): UserPart => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image_url') return { type: 'image', image: p.image_url.url };
    if (p.type === 'file') return { type: 'file', data: p.file.file_data ?? p.file.file_id ?? '', mediaType: 'application/octet-stream' };
    if (p.type === 'input_audio') return { type: 'file', data: p.input_audio.data, mediaType: `audio/${p.input_audio.format}` };
    return { type: 'text', text: p.refusal };
  });
}

function canonicalUserContent(content: string | UserPart[]): UserMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((p): ContentPart => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image') return { type: 'image_url', image_url: { url: p.image } };
    return { type: 'file', file: { file_data: p.data } };
  });
}

// --- Vercel AI SDK -------------------------------------------------------------------------------------------------

/** Messages with an unknown role have no AI SDK equivalent; they are left out of both sides of the comparison. */
export function toModelMessages(t: Transcript): ModelMessage[] {
  const out: ModelMessage[] = [];
  const names = indexCalls(t).calls;
  for (const m of t.messages) {
    if (m.role === 'system' || m.role === 'developer') out.push({ role: 'system', content: contentText(m.content as string) });
    else if (m.role === 'user') out.push({ role: 'user', content: userParts((m as UserMessage).content) } as ModelMessage);
    else if (m.role === 'assistant') {
      const a = m as AssistantMessage;
      const parts: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
      if (a.reasoning_content) parts.push({ type: 'reasoning', text: a.reasoning_content });
      const text = contentText(a.content);
      if (text !== '') parts.push({ type: 'text', text });
      for (const c of a.tool_calls ?? [])
        parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: parseArgs(c.function.arguments) });
      out.push({ role: 'assistant', content: parts });
    } else if (m.role === 'tool') {
      const tm = m as CanonicalTool;
      const value = typeof tm.content === 'string' ? tm.content : contentText(tm.content);
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: tm.tool_call_id,
            toolName: names.get(tm.tool_call_id)?.function.name ?? '',
            output: { type: tm.is_error ? 'error-text' : 'text', value },
          },
        ],
      });
    }
  }
  return out;
}

export function fromModelMessages(id: string, messages: readonly ModelMessage[], index: CallIndex): Transcript {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user') out.push({ role: 'user', content: canonicalUserContent(m.content as string | UserPart[]) });
    else if (m.role === 'assistant') {
      const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
      const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      const reasoning = parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])).join('\n\n');
      const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [index.calls.get(p.toolCallId)!] : []));
      const a: AssistantMessage = { role: 'assistant', content: text === '' ? null : text };
      if (reasoning !== '') a.reasoning_content = reasoning;
      if (calls.length > 0) a.tool_calls = calls;
      out.push(a);
    } else if (m.role === 'tool') {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const output = p.output as { type: string; value: string };
        const tm: CanonicalTool = { role: 'tool', tool_call_id: p.toolCallId, content: output.value };
        if (output.type === 'error-text') tm.is_error = true;
        out.push(tm);
      }
    }
  }
  return { id, messages: out };
}

// --- LangChain -------------------------------------------------------------------------------------------------------

export function toLangChain(t: Transcript): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const m of t.messages) {
    if (m.role === 'system' || m.role === 'developer') out.push(new SystemMessage(contentText(m.content as string)));
    else if (m.role === 'user') {
      const c = (m as UserMessage).content;
      out.push(
        new HumanMessage({
          content:
            typeof c === 'string'
              ? c
              : c.map((p) =>
                  p.type === 'image_url' ? { type: 'image_url', image_url: { url: p.image_url.url } } : { type: 'text', text: p.type === 'text' ? p.text : '' },
                ),
        }),
      );
    } else if (m.role === 'assistant') {
      const a = m as AssistantMessage;
      out.push(
        new AIMessage({
          content: contentText(a.content),
          tool_calls: (a.tool_calls ?? []).map((c) => ({
            id: c.id,
            name: c.function.name,
            args: parseArgs(c.function.arguments) as Record<string, unknown>,
            type: 'tool_call' as const,
          })),
          additional_kwargs: a.reasoning_content ? { reasoning_content: a.reasoning_content } : {},
        }),
      );
    } else if (m.role === 'tool') {
      const tm = m as CanonicalTool;
      out.push(
        new ToolMessage({
          content: typeof tm.content === 'string' ? tm.content : contentText(tm.content),
          tool_call_id: tm.tool_call_id,
          status: tm.is_error ? 'error' : 'success',
        }),
      );
    }
  }
  return out;
}

export function fromLangChain(id: string, messages: readonly BaseMessage[], index: CallIndex): Transcript {
  const out: Message[] = [];
  for (const m of messages) {
    // trimMessages returns [undefined] when even the system message alone is over the budget.
    if (m === undefined) continue;
    const type = m.getType();
    if (type === 'system') out.push({ role: 'system', content: m.content as string });
    else if (type === 'human') {
      const c = m.content as string | { type: string; text?: string; image_url?: { url: string } }[];
      out.push({
        role: 'user',
        content:
          typeof c === 'string'
            ? c
            : c.map((p): ContentPart =>
                p.type === 'image_url' ? { type: 'image_url', image_url: { url: p.image_url!.url } } : { type: 'text', text: p.text ?? '' },
              ),
      });
    } else if (type === 'ai') {
      const ai = m as AIMessage;
      const text = typeof ai.content === 'string' ? ai.content : '';
      const a: AssistantMessage = { role: 'assistant', content: text === '' ? null : text };
      const reasoning = ai.additional_kwargs.reasoning_content;
      if (typeof reasoning === 'string') a.reasoning_content = reasoning;
      const calls = (ai.tool_calls ?? []).map((c) => index.calls.get(c.id!)!);
      if (calls.length > 0) a.tool_calls = calls;
      out.push(a);
    } else if (type === 'tool') {
      const tm = m as ToolMessage;
      const c: CanonicalTool = { role: 'tool', tool_call_id: tm.tool_call_id, content: tm.content as string };
      if (tm.status === 'error') c.is_error = true;
      out.push(c);
    }
  }
  return { id, messages: out };
}

/** Same counting rules as src/tokens/breakdown.ts, on LangChain messages, memoized per message object. */
export function langChainCounter(count: (text: string) => number, index: CallIndex): (messages: BaseMessage[]) => number {
  const memo = new WeakMap<BaseMessage, number>();
  const one = (m: BaseMessage): number => {
    let n = memo.get(m);
    if (n !== undefined) return n;
    n = 3;
    if (typeof m.content === 'string') n += count(m.content);
    else
      for (const p of m.content as { type: string; text?: string; image_url?: { url: string } }[])
        n += p.type === 'image_url' ? Math.ceil((p.image_url?.url.length ?? 0) / 4) : count(p.text ?? '');
    if (m.getType() === 'ai') {
      const ai = m as AIMessage;
      const reasoning = ai.additional_kwargs.reasoning_content;
      if (typeof reasoning === 'string') n += count(reasoning);
      for (const c of ai.tool_calls ?? []) {
        const original = index.calls.get(c.id!);
        n += count(c.name) + count(original ? original.function.arguments : JSON.stringify(c.args));
      }
    }
    memo.set(m, n);
    return n;
  };
  return (messages) => {
    let total = 0;
    for (const m of messages) total += one(m);
    return total;
  };
}
