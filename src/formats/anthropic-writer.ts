import { parseArguments } from '../io/canonical-json.js';
import type { ContentPart } from '../model/content.js';
import { type AssistantMessage, type ToolMessage, isAssistant, isTool } from '../model/message.js';
import type { ToolDef, Transcript } from '../model/transcript.js';

/** One conversation in the Anthropic Messages API shape, plus the archive's `id` and `metadata`. */
export interface AnthropicConversation {
  id: string;
  system?: string | { type: 'text'; text: string }[];
  messages: Record<string, unknown>[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

const ASSISTANT_OWN = new Set(['role', 'content', 'tool_calls', 'reasoning_content', 'unmapped_blocks']);
const USER_OWN = new Set(['role', 'content', 'unmapped_blocks']);
const TOOL_OWN = new Set(['role', 'content', 'tool_call_id', 'is_error']);

/**
 * Writes a canonical transcript as an Anthropic conversation, losslessly for what `readAnthropic` reads back:
 * - a leading `system` message becomes the top-level `system`; other system/developer messages become user messages
 *   marked `original_role`;
 * - an assistant message becomes blocks: one `thinking` block (reasoning; signatures are not kept, so the API will not
 *   accept it back as is), text blocks, `tool_use` blocks (`input` parsed from the arguments; when the arguments are
 *   not canonical JSON of an object they also go verbatim in `raw_arguments`);
 * - each run of `tool` messages becomes one user message of `tool_result` blocks (`is_error` kept);
 * - fields the Messages API does not define (`usage`, `timestamp`, a tool message's `name`...) ride along on the
 *   message (or on the tool_result block): strip them before sending a conversation to the API.
 */
export function toAnthropic(transcript: Transcript): AnthropicConversation {
  const out: AnthropicConversation = { id: transcript.id, messages: [] };
  const messages = transcript.messages;
  let start = 0;
  const first = messages[0];
  if (first && first.role === 'system' && Object.keys(first).every((k) => k === 'role' || k === 'content')) {
    const content = first.content as string | { type: 'text'; text: string }[];
    out.system = typeof content === 'string' ? content : content.map((p) => ({ type: 'text', text: p.text }));
    start = 1;
  }
  for (let i = start; i < messages.length; i++) {
    const m = messages[i];
    if (isTool(m)) {
      const blocks: Record<string, unknown>[] = [];
      while (i < messages.length && isTool(messages[i])) blocks.push(toolResultBlock(messages[i++] as ToolMessage));
      i--;
      out.messages.push({ role: 'user', content: blocks });
    } else if (isAssistant(m)) out.messages.push(assistantTurn(m));
    else if (m.role === 'user') out.messages.push(userTurn(m as Record<string, unknown>));
    else if (m.role === 'system' || m.role === 'developer') {
      out.messages.push({ ...extras(m, USER_OWN), role: 'user', content: userContent(m.content as string | ContentPart[]), original_role: m.role });
    } else out.messages.push({ ...m });
  }
  if (transcript.tools) out.tools = transcript.tools.map(anthropicTool);
  if (transcript.metadata) out.metadata = transcript.metadata;
  for (const [key, value] of Object.entries(transcript)) if (!(key in out) && key !== 'tools' && key !== 'messages') out[key] = value;
  return out;
}

function extras(m: object, own: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(m)) if (!own.has(key)) out[key] = value;
  return out;
}

function assistantTurn(m: AssistantMessage): Record<string, unknown> {
  const blocks: unknown[] = [];
  if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') blocks.push({ type: 'thinking', thinking: m.reasoning_content });
  if (typeof m.content === 'string') blocks.push({ type: 'text', text: m.content });
  else if (Array.isArray(m.content)) for (const p of m.content) blocks.push({ type: 'text', text: p.type === 'text' ? p.text : p.refusal });
  for (const call of m.tool_calls ?? []) {
    const input = parseArguments(call.function.arguments);
    const block: Record<string, unknown> = { type: 'tool_use', id: call.id, name: call.function.name, input: input ?? {} };
    if (input === undefined || JSON.stringify(input) !== call.function.arguments) block.raw_arguments = call.function.arguments;
    blocks.push(block);
  }
  if (Array.isArray(m.unmapped_blocks)) blocks.push(...(m.unmapped_blocks as unknown[]));
  return { ...extras(m, ASSISTANT_OWN), role: 'assistant', content: blocks };
}

function userTurn(m: Record<string, unknown>): Record<string, unknown> {
  const content = userContent(m.content as string | ContentPart[]);
  const unmapped = Array.isArray(m.unmapped_blocks) ? (m.unmapped_blocks as unknown[]) : [];
  return { ...extras(m, USER_OWN), role: 'user', content: unmapped.length > 0 ? [...(content as unknown[]), ...unmapped] : content };
}

function toolResultBlock(m: ToolMessage): Record<string, unknown> {
  const block: Record<string, unknown> = { type: 'tool_result', tool_use_id: m.tool_call_id, content: userContent(m.content) };
  if (m.is_error !== undefined) block.is_error = m.is_error;
  return { ...block, ...extras(m, TOOL_OWN) };
}

function userContent(content: string | readonly ContentPart[]): string | Record<string, unknown>[] {
  if (typeof content === 'string') return content;
  return content.map(partBlock);
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function partBlock(part: ContentPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image_url') {
    const data = DATA_URL.exec(part.image_url.url);
    return data
      ? { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
      : { type: 'image', source: { type: 'url', url: part.image_url.url } };
  }
  if (part.type === 'file' && part.file.file_data !== undefined) {
    const data = DATA_URL.exec(part.file.file_data);
    if (data) {
      const block: Record<string, unknown> = { type: 'document', source: { type: 'base64', media_type: data[1], data: data[2] } };
      if (part.file.filename !== undefined) block.title = part.file.filename;
      return block;
    }
  }
  return { ...part }; // no Anthropic equivalent (audio, refusal, file ids): kept as is
}

function anthropicTool(tool: ToolDef): { name: string; description?: string; input_schema: Record<string, unknown> } {
  const out: { name: string; description?: string; input_schema: Record<string, unknown> } = {
    name: tool.function.name,
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  };
  if (tool.function.description !== undefined) out.description = tool.function.description;
  return out;
}
