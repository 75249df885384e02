import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, ToolCall, ToolMessage, UserMessage } from '../model/message.js';
import { isObject } from './_items.js';

/**
 * Mapping of Anthropic Messages API content blocks to the canonical (OpenAI chat) shape, shared by the Anthropic and
 * Claude Code adapters (Claude Code stores Messages API blocks).
 */

/** The blocks of one assistant reply, gathered before they become one assistant message. */
export interface AssistantBlocks {
  texts: string[];
  reasoning: string[];
  calls: ToolCall[];
  /** Blocks with no canonical equivalent (e.g. server tool blocks), kept as they are on `unmapped_blocks`. */
  unmapped: unknown[];
  /** Redacted thinking blocks: their content is encrypted, so only their number is kept. */
  redactedThinking: number;
  /** Thinking blocks logged without their text (a signature only): the model wrote them, the log does not hold them. */
  thinkingWithoutText: number;
}

export function emptyAssistantBlocks(): AssistantBlocks {
  return { texts: [], reasoning: [], calls: [], unmapped: [], redactedThinking: 0, thinkingWithoutText: 0 };
}

/**
 * Adds one block of an assistant reply. `thinking` blocks with text go to reasoning (empty ones carry only a
 * signature: only their number is kept), `tool_use` becomes a tool call whose arguments are `JSON.stringify(input)` (or the
 * block's `raw_arguments`, written by `--to anthropic` when the source arguments were not canonical JSON).
 */
export function addAssistantBlock(into: AssistantBlocks, block: unknown): void {
  if (typeof block === 'string') {
    into.texts.push(block);
    return;
  }
  if (!isObject(block)) {
    into.unmapped.push(block);
    return;
  }
  if (block.type === 'text' && typeof block.text === 'string') into.texts.push(block.text);
  else if (block.type === 'thinking' && typeof block.thinking === 'string') {
    if (block.thinking !== '') into.reasoning.push(block.thinking);
    else into.thinkingWithoutText++;
  } else if (block.type === 'redacted_thinking') into.redactedThinking++;
  else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
    const args = typeof block.raw_arguments === 'string' ? block.raw_arguments : JSON.stringify(block.input ?? {});
    into.calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: args } });
  } else into.unmapped.push(block);
}

/**
 * One assistant message from a reply's blocks: `content` is the text (a string for one text block, text parts for
 * several, null for none), `reasoning_content` the thinking blocks joined by a blank line, `tool_calls` the tool uses.
 */
export function assistantFromBlocks(blocks: AssistantBlocks, extra: Record<string, unknown> = {}): AssistantMessage {
  const content =
    blocks.texts.length === 0 ? null : blocks.texts.length === 1 ? blocks.texts[0] : blocks.texts.map((text) => ({ type: 'text' as const, text }));
  const message: AssistantMessage = { role: 'assistant', content };
  if (blocks.reasoning.length > 0) message.reasoning_content = blocks.reasoning.join('\n\n');
  if (blocks.calls.length > 0) message.tool_calls = blocks.calls;
  if (blocks.unmapped.length > 0) message.unmapped_blocks = blocks.unmapped;
  if (blocks.redactedThinking > 0) message.redacted_thinking_blocks = blocks.redactedThinking;
  if (blocks.thinkingWithoutText > 0) message.thinking_blocks_without_text = blocks.thinkingWithoutText;
  return Object.assign(message, withoutKeys(extra, message));
}

/** A user-side content block as a canonical part, or undefined when it has no canonical equivalent. */
function partFromBlock(block: unknown): ContentPart | undefined {
  if (typeof block === 'string') return { type: 'text', text: block };
  if (!isObject(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  const source = isObject(block.source) ? block.source : undefined;
  if (block.type === 'image' && source) {
    if (source.type === 'base64' && typeof source.data === 'string' && typeof source.media_type === 'string') {
      return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
    }
    if (source.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } };
  }
  if (block.type === 'document' && source?.type === 'base64' && typeof source.data === 'string' && typeof source.media_type === 'string') {
    const file: { file_data: string; filename?: string } = { file_data: `data:${source.media_type};base64,${source.data}` };
    if (typeof block.title === 'string') file.filename = block.title;
    return { type: 'file', file };
  }
  return undefined;
}

const TOOL_RESULT_KEYS = new Set(['type', 'tool_use_id', 'content', 'is_error']);

/** A `tool_result` block as a tool message; fields the block carries beyond the API's ride along on the message. */
function toolMessageFromBlock(block: Record<string, unknown>, extra: Record<string, unknown> = {}): ToolMessage {
  const message: ToolMessage = { role: 'tool', tool_call_id: String(block.tool_use_id), content: toolResultContent(block.content) };
  if (typeof block.is_error === 'boolean') message.is_error = block.is_error;
  for (const [key, value] of Object.entries(block)) if (!TOOL_RESULT_KEYS.has(key)) message[key] = value;
  return Object.assign(message, withoutKeys(extra, message));
}

function toolResultContent(content: unknown): ToolMessage['content'] {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  const parts: ContentPart[] = [];
  for (const block of content) parts.push(partFromBlock(block) ?? { type: 'text', text: JSON.stringify(block) });
  return parts;
}

export function isToolResultBlock(block: unknown): block is Record<string, unknown> & { tool_use_id: string } {
  return isObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string';
}

/**
 * Splits the content of a user turn: `tool_result` blocks become tool messages (in order), the other blocks one user
 * message after them (string content stays a string). Blocks with no canonical equivalent are kept on the user
 * message as `unmapped_blocks`.
 */
export function userTurnMessages(content: unknown, extra: Record<string, unknown> = {}): { tools: ToolMessage[]; user: UserMessage | undefined } {
  if (typeof content === 'string') return { tools: [], user: Object.assign({ role: 'user' as const, content }, withoutKeys(extra, { role: 1, content: 1 })) };
  const tools: ToolMessage[] = [];
  const parts: ContentPart[] = [];
  const unmapped: unknown[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (isToolResultBlock(block)) {
      tools.push(toolMessageFromBlock(block, extra));
      continue;
    }
    const part = partFromBlock(block);
    if (part) parts.push(part);
    else unmapped.push(block);
  }
  // A turn of tool results alone makes no user message; an empty turn stays an (empty) user message.
  if (parts.length === 0 && unmapped.length === 0 && tools.length > 0) return { tools, user: undefined };
  const user: UserMessage = { role: 'user', content: parts };
  if (unmapped.length > 0) user.unmapped_blocks = unmapped;
  return { tools, user: Object.assign(user, withoutKeys(extra, user)) };
}

function withoutKeys(extra: Record<string, unknown>, taken: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extra)) if (!(key in taken)) out[key] = value;
  return out;
}
