/**
 * Canonical messages <-> the AI SDK's `ModelMessage`. Tool-call arguments travel parsed in the SDK; a {@link CallIndex}
 * gives back the original argument strings, so a round trip without edits counts exactly the same tokens.
 */
import type { ModelMessage } from 'ai';
import { contentText, type ContentPart } from '../../model/content.js';
import type { AssistantMessage, Message, ToolMessage, UserMessage } from '../../model/message.js';
import { type CallIndex, callOf, indexCalls, parseArgs } from '../call-index.js';
import { thinkingWithoutText, withoutText } from '../thinking.js';

type UserPart = { type: 'text'; text: string } | { type: 'image'; image: string } | { type: 'file'; data: string; mediaType: string };
type AssistantParts = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>;
type ToolResultPart = Extract<Extract<ModelMessage, { role: 'tool' }>['content'][number], { type: 'tool-result' }>;

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

function canonicalUserContent(content: string | readonly { type: string }[]): UserMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((part): ContentPart => {
    const p = part as UserPart | { type: 'image'; image: unknown } | { type: 'file'; data: unknown };
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image') return { type: 'image_url', image_url: { url: String(p.image) } };
    return { type: 'file', file: { file_data: String(p.data) } };
  });
}

/**
 * A canonical tool result as the SDK's output of a tool call: text, or its parts as `content` (each part is a block of
 * Anthropic's cache lookback, so a result keeps as many as it had).
 */
export function toolOutput(m: ToolMessage): ToolResultPart['output'] {
  if (typeof m.content !== 'string' && m.content.length > 1 && !m.is_error) {
    return { type: 'content', value: m.content.map((p) => ({ type: 'text' as const, text: contentText([p]) })) };
  }
  const value = typeof m.content === 'string' ? m.content : contentText(m.content);
  return { type: m.is_error ? 'error-text' : 'text', value };
}

/** An assistant's text as SDK parts: one per canonical text part. */
function textParts(content: AssistantMessage['content']): { type: 'text'; text: string }[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((p) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text }] : []));
}

/** One canonical message as ModelMessages (none for a role the SDK has no equivalent of). */
export function toModelMessage(m: Message, toolNameOf: (callId: string) => string): ModelMessage[] {
  if (m.role === 'system' || m.role === 'developer') return [{ role: 'system', content: contentText(m.content as string) }];
  if (m.role === 'user') return [{ role: 'user', content: userParts((m as UserMessage).content) } as ModelMessage];
  if (m.role === 'assistant') {
    const a = m as AssistantMessage;
    const parts: AssistantParts = [];
    for (let i = 0; i < thinkingWithoutText(a); i++) parts.push({ type: 'reasoning', text: '' });
    if (a.reasoning_content) parts.push({ type: 'reasoning', text: a.reasoning_content });
    parts.push(...textParts(a.content));
    for (const c of a.tool_calls ?? []) parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: parseArgs(c.function.arguments) });
    return [{ role: 'assistant', content: parts }];
  }
  if (m.role === 'tool') {
    const tm = m as ToolMessage;
    return [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: tm.tool_call_id, toolName: toolNameOf(tm.tool_call_id), output: toolOutput(tm) }] }];
  }
  return [];
}

/** Canonical messages as ModelMessages, one tool message per result; messages with an unknown role are left out. */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const calls = indexCalls(messages).calls;
  return messages.flatMap((m) => toModelMessage(m, (id) => calls.get(id)?.function.name ?? ''));
}

/** The text of a tool's output, whatever form the SDK gave it. */
function outputText(output: ToolResultPart['output']): { text: string; error: boolean } {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { text: output.value, error: output.type === 'error-text' };
    case 'json':
    case 'error-json':
      return { text: JSON.stringify(output.value), error: output.type === 'error-json' };
    case 'content':
      return { text: output.value.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'), error: false };
    default:
      return { text: (output as { reason?: string }).reason ?? '', error: true };
  }
}

/** A tool output's canonical content: text parts stay parts. */
function outputContent(output: ToolResultPart['output']): { content: ToolMessage['content']; error: boolean } {
  if (output.type === 'content' && output.value.length > 1 && output.value.every((p) => p.type === 'text')) {
    return { content: output.value.map((p) => ({ type: 'text' as const, text: (p as { text: string }).text })), error: false };
  }
  const { text, error } = outputText(output);
  return { content: text, error };
}

/**
 * One ModelMessage as canonical messages: a tool message gives one per result. The SDK says of every result whether it
 * failed (`error-text`, `error-json`, `execution-denied`, or an output of the tool that returned), so each carries an
 * `is_error` flag: none is left to its first line (see model/tool-outcome.ts).
 */
export function fromModelMessage(m: ModelMessage, index?: CallIndex): Message[] {
  if (m.role === 'system') return [{ role: 'system', content: m.content }];
  if (m.role === 'user') return [{ role: 'user', content: canonicalUserContent(m.content) }];
  if (m.role === 'assistant') {
    const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const texts = parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    const thoughts = parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : []));
    const reasoning = thoughts.filter((t) => t !== '').join('\n\n');
    const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [callOf(p.toolCallId, p.toolName, p.input, index)] : []));
    const content = texts.length > 1 ? texts.map((text) => ({ type: 'text' as const, text })) : texts[0] || null;
    const a: AssistantMessage = { role: 'assistant', content };
    if (reasoning !== '') a.reasoning_content = reasoning;
    // A thinking block given without its text (Anthropic's redacted or signature-only ones) is an empty part: counted.
    withoutText(a, thoughts.filter((t) => t === '').length);
    if (calls.length > 0) a.tool_calls = calls;
    return [a];
  }
  return m.content.flatMap((p) => {
    if (p.type !== 'tool-result') return [];
    const { content, error } = outputContent(p.output);
    return [{ role: 'tool', tool_call_id: p.toolCallId, content, is_error: error } satisfies ToolMessage];
  });
}

export function fromModelMessages(messages: readonly ModelMessage[], index?: CallIndex): Message[] {
  return messages.flatMap((m) => fromModelMessage(m, index));
}
