import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message } from '../model/message.js';
import { isObject } from './_items.js';

// Shapes of Codex rollout lines and response items, and how the texts of one request join (see codex.ts).

export function appendReasoning(message: AssistantMessage, texts: string[]): void {
  if (texts.length === 0) return;
  message.reasoning_content = [message.reasoning_content, ...texts].filter((t) => t !== undefined && t !== '').join('\n\n');
}

type TextParts = { type: 'text'; text: string }[];

/** Two assistant texts of one response as one content: a string alone, text parts once there are several. */
export function joinText(a: AssistantMessage['content'], b: AssistantMessage['content']): AssistantMessage['content'] {
  const parts = (c: AssistantMessage['content']): TextParts => (c == null ? [] : typeof c === 'string' ? [{ type: 'text', text: c }] : (c as TextParts));
  const all = [...parts(a), ...parts(b)];
  return all.length === 0 ? null : all.length === 1 ? all[0].text : all;
}

/** The line types of the wrapped layout (`{timestamp, type, payload}`). */
export const CODEX_LINE_TYPES: ReadonlySet<string> = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const LEGACY_META_KEYS: ReadonlySet<string> = new Set(['id', 'timestamp', 'instructions', 'git', 'cwd', 'originator', 'cli_version', 'model']);

/** The first line of a 2025 rollout: `{id, timestamp}` with optional `instructions` and `git`, and nothing else. */
export function isLegacySessionMeta(value: Record<string, unknown>): boolean {
  return typeof value.id === 'string' && typeof value.timestamp === 'string' && Object.keys(value).every((k) => LEGACY_META_KEYS.has(k));
}

type Converted = { ok: true; message: Message } | { ok: false; message: string };

/** A `message` response item as a canonical message (text and image parts; one text part becomes a string). */
export function messageOf(p: Record<string, unknown>): Converted {
  if (typeof p.role !== 'string' || !Array.isArray(p.content)) return { ok: false, message: 'a message needs a string role and a content array' };
  const parts: ContentPart[] = [];
  for (const item of p.content) {
    if (isObject(item) && (item.type === 'input_text' || item.type === 'output_text') && typeof item.text === 'string')
      parts.push({ type: 'text', text: item.text });
    else if (isObject(item) && item.type === 'input_image' && typeof item.image_url === 'string')
      parts.push({ type: 'image_url', image_url: { url: item.image_url } });
    else return { ok: false, message: `unsupported content item ${JSON.stringify(item).slice(0, 80)}` };
  }
  const single = parts.length === 1 && parts[0].type === 'text' ? parts[0].text : undefined;
  if (p.role === 'assistant') {
    const content = single ?? (parts.length === 0 ? null : (parts.filter((x) => x.type === 'text') as TextParts));
    return { ok: true, message: { role: 'assistant', content } };
  }
  return { ok: true, message: { role: p.role, content: single ?? parts } as Message };
}
