import type { JsonSignature } from './_json-peek.js';
import { isObject } from './_items.js';

/**
 * Roo Code's versioned history (RooCodeInc/Roo-Code src/core/task-persistence/rooMessage.ts `RooMessageHistory`,
 * apiMessages.ts `saveRooMessages`, from 50e5d98f5b and e6f0e79c38 to their revert 6cfa82f571, 2026-02; released in
 * the Roo CLI 0.0.53): `{version: 2, messages}` in `api_conversation_history.json`, each message an AI SDK
 * `ModelMessage` with Roo's fields (`ts`, `condenseId`, `condenseParent`, `truncationId`, `truncationParent`,
 * `isTruncationMarker`, `isSummary`; an assistant's `id`). Each is read as the Anthropic message Roo wrote before
 * (`convertAnthropicToRooMessages`, converters/anthropicToRoo.ts, run backwards), so the rest of the reader sees one shape.
 */

/** The only version of the envelope Roo wrote (`ROO_MESSAGE_VERSION`). */
export const ROO_HISTORY_VERSION = 2;

/** Whether a parsed document is Roo's envelope: an object of `version` and `messages` alone (detectFormat's test, and no other key). */
export function isRooHistoryEnvelope(value: unknown): value is { version: unknown; messages: unknown[] } {
  return isObject(value) && Array.isArray(value.messages) && Object.keys(value).every((k) => k === 'version' || k === 'messages') && 'version' in value;
}

/**
 * Whether a JSON document's start is Roo's envelope: `version` and `messages` and no other key, messages with roles
 * and Roo's `ts` (Cline's SDK session has a `sessionId`, its compaction state a `source_message_count`).
 */
export function isRooHistorySignature(sig: JsonSignature): boolean {
  const keys = new Set(sig.keys);
  return sig.root === 'object' && keys.size === 2 && keys.has('version') && keys.has('messages') && sig.roles.size > 0 && sig.allKeys.has('ts');
}

/** Roo's own fields, kept on the message as the Anthropic-shaped history carried them. */
const ROO_FIELDS = ['ts', 'id', 'isSummary', 'condenseId', 'condenseParent', 'truncationId', 'truncationParent', 'isTruncationMarker'] as const;

/**
 * One envelope message as the Anthropic-shaped element the reader takes, or an error message. A `tool` message
 * (AI SDK tool results) becomes a user turn of `tool_result` blocks, as Roo stored results before; a standalone
 * reasoning item stays as it is.
 */
export function legacyOfRooMessage(value: unknown): { element: Record<string, unknown> } | { error: string } {
  if (!isObject(value)) return { error: 'expected a message (an object)' };
  if (value.type === 'reasoning' && value.role === undefined) return { element: value };
  const fields: Record<string, unknown> = {};
  for (const key of ROO_FIELDS) if (value[key] !== undefined) fields[key] = value[key];
  const { role, content } = value;
  if (role !== 'user' && role !== 'assistant' && role !== 'tool') return { error: 'expected a message with role "user", "assistant" or "tool"' };
  if (typeof content === 'string') return role === 'tool' ? { error: 'content: expected tool-result parts' } : { element: { role, content, ...fields } };
  if (!Array.isArray(content)) return { error: 'content: expected a string or an array of parts' };
  const blocks: unknown[] = [];
  for (const [i, part] of content.entries()) {
    const block = role === 'assistant' ? assistantBlock(part) : role === 'tool' ? toolBlock(part) : userBlock(part);
    if (typeof block === 'string') return { error: `content[${i}]: ${block}` };
    blocks.push(block);
  }
  return { element: { role: role === 'tool' ? 'user' : role, content: blocks, ...fields } };
}

const partType = (part: unknown) => (isObject(part) && typeof part.type === 'string' ? part.type : undefined);

/** An assistant part: text, tool-call -> `tool_use`, reasoning -> Roo's `{type: "reasoning", text}` (redacted -> `redacted_thinking`). */
function assistantBlock(part: unknown): unknown {
  if (!isObject(part)) return 'expected a part (an object)';
  if (part.type === 'tool-call') {
    if (typeof part.toolCallId !== 'string' || typeof part.toolName !== 'string') return 'tool-call: expected toolCallId and toolName';
    return { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} };
  }
  if (part.type === 'reasoning' && typeof part.text === 'string') {
    const options = isObject(part.providerOptions) && isObject(part.providerOptions.anthropic) ? part.providerOptions.anthropic : undefined;
    if (part.text === '' && typeof options?.redactedData === 'string') return { type: 'redacted_thinking', data: options.redactedData };
    return { type: 'reasoning', text: part.text };
  }
  // Text, and what has no Anthropic form (OpenAI's encrypted reasoning Roo puts first), as it is.
  return part;
}

/** A user part: text as it is, an image (data URL, URL or base64) and a file as Anthropic's image and document blocks. */
function userBlock(part: unknown): unknown {
  if (!isObject(part)) return 'expected a part (an object)';
  if (part.type === 'image' && typeof part.image === 'string') return mediaBlock('image', part.image, part.mediaType);
  if (part.type === 'file' && typeof part.data === 'string') {
    const block = mediaBlock('document', part.data, part.mediaType);
    return typeof part.filename === 'string' && isObject(block) ? { ...block, title: part.filename } : block;
  }
  return part;
}

function mediaBlock(type: 'image' | 'document', data: string, mediaType: unknown): unknown {
  const url = /^data:([^;,]+);base64,(.*)$/s.exec(data);
  if (url) return { type, source: { type: 'base64', media_type: url[1], data: url[2] } };
  if (/^https?:\/\//.test(data)) return { type, source: { type: 'url', url: data } };
  if (typeof mediaType === 'string') return { type, source: { type: 'base64', media_type: mediaType, data } };
  return `${type}: expected a data URL, a URL, or base64 data with a mediaType`;
}

/**
 * A tool part: an AI SDK `tool-result` as a `tool_result` block, its output as the text the provider was sent
 * (`text` and `error-text` as they are, `json` and `error-json` as JSON, `content` part by part); a legacy
 * `tool_result` block as it is.
 */
function toolBlock(part: unknown): unknown {
  if (partType(part) === 'tool_result') return part;
  if (!isObject(part) || part.type !== 'tool-result') return 'expected a tool-result part';
  if (typeof part.toolCallId !== 'string') return 'tool-result: expected a toolCallId';
  const output = part.output;
  if (!isObject(output) || typeof output.type !== 'string') return 'tool-result: expected an output {type, value}';
  const error = output.type.startsWith('error-');
  let content: unknown;
  if (output.type === 'text' || output.type === 'error-text') content = typeof output.value === 'string' ? output.value : undefined;
  else if (output.type === 'json' || output.type === 'error-json') content = JSON.stringify(output.value ?? null);
  else if (output.type === 'content' && Array.isArray(output.value)) content = output.value.map(contentPart);
  if (content === undefined) return `tool-result: output type "${output.type}" with this value is not known`;
  return { type: 'tool_result', tool_use_id: part.toolCallId, content, ...(error ? { is_error: true } : {}) };
}

/** One part of a `content` output: text, media as an image block, anything else as it is. */
function contentPart(p: unknown): unknown {
  if (isObject(p) && p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
  if (isObject(p) && p.type === 'media' && typeof p.data === 'string' && typeof p.mediaType === 'string')
    return { type: 'image', source: { type: 'base64', media_type: p.mediaType, data: p.data } };
  return p;
}
