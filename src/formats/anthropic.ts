import { contentText, type ContentPart } from '../model/content.js';
import type { Message } from '../model/message.js';
import type { ToolDef } from '../model/transcript.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { baseName, errorItem, finishTranscript, isObject, type DraftTranscript } from './_items.js';
import { readRecords, type SourceRecord } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

const OWN_KEYS = new Set(['id', 'system', 'messages', 'tools', 'metadata']);
const MESSAGE_KEYS = new Set(['role', 'content']);

/**
 * Anthropic Messages API conversations `{system?, messages: [{role, content: string | blocks}], tools?}`, one per
 * JSONL line, or in a JSON file holding one conversation or an array of them.
 * - `system` becomes the first message (`system` string, or text blocks as text parts).
 * - A user turn's `tool_result` blocks become `tool` messages (with `is_error`), its other blocks one user message.
 * - An assistant turn becomes one assistant message: thinking -> `reasoning_content`, text -> `content`,
 *   tool_use -> `tool_calls` (arguments `JSON.stringify(input)`).
 * - `tools` (`{name, description, input_schema}`) become function definitions.
 * - Fields outside the API's (`id`, `metadata`, per-message `usage`...) are kept; a message's `original_role`
 *   (written by `--to anthropic` for system messages that cannot be top-level) restores its role.
 * Ids: the record's `id`, else `<file base>#<n>` (element index or line number), or the file base for a lone object.
 */
export async function* readAnthropic(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const entry of readRecords(file, options)) {
    if (entry.kind === 'item') {
      yield entry.item;
      continue;
    }
    const draft = anthropicDraft(file, entry.record);
    if (typeof draft === 'string') yield errorItem(entry.record.at, 'E_SCHEMA', `${entry.record.where}${draft}`);
    else yield finishTranscript(draft, entry.record.at, 1, entry.record.where);
  }
}

function anthropicDraft(file: string, { value, index }: SourceRecord): DraftTranscript | string {
  if (!isObject(value)) return 'expected an Anthropic conversation object {system?, messages}';
  if (!Array.isArray(value.messages)) return 'messages: expected an array';
  const messages: Message[] = [];
  const warnings: string[] = [];
  if (typeof value.system === 'string') messages.push({ role: 'system', content: value.system });
  else if (Array.isArray(value.system)) {
    const parts = value.system.map((b) => (isObject(b) && typeof b.text === 'string' ? { type: 'text' as const, text: b.text } : undefined));
    if (parts.some((p) => p === undefined)) return 'system: expected a string or an array of text blocks';
    messages.push({ role: 'system', content: parts as { type: 'text'; text: string }[] });
  } else if (value.system !== undefined) return 'system: expected a string or an array of text blocks';
  for (let i = 0; i < value.messages.length; i++) {
    const message = value.messages[i];
    if (!isObject(message) || typeof message.role !== 'string') return `messages[${i}].role: expected a message with a string role`;
    const problem = convertMessage(message, messages);
    if (problem) return `messages[${i}].${problem}`;
  }
  const draft: DraftTranscript = {
    id: typeof value.id === 'string' && value.id !== '' ? value.id : `${baseName(file)}${index === undefined ? '' : `#${index}`}`,
    messages,
    // A conversation written by `--to anthropic` already names its original source: keep it.
    metadata: { source: { format: 'anthropic', file }, ...(isObject(value.metadata) ? value.metadata : {}) },
    warnings,
  };
  if (Array.isArray(value.tools)) {
    const tools: ToolDef[] = [];
    const unmapped: unknown[] = [];
    for (const tool of value.tools) {
      if (isObject(tool) && typeof tool.name === 'string' && (tool.type === undefined || tool.type === 'custom')) tools.push(toolDef(tool));
      else unmapped.push(tool);
    }
    if (tools.length > 0) draft.tools = tools;
    if (unmapped.length > 0) {
      draft.metadata = { ...draft.metadata, unmappedTools: unmapped };
      warnings.push(`${unmapped.length} server tools with no function equivalent kept in metadata.unmappedTools`);
    }
  }
  const extra: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (!OWN_KEYS.has(key)) extra[key] = field;
  draft.extra = extra;
  return draft;
}

/** Appends the canonical messages of one Anthropic message; returns a problem (path: reason) when it does not fit. */
function convertMessage(message: Record<string, unknown>, into: Message[]): string | undefined {
  const extra: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(message)) if (!MESSAGE_KEYS.has(key) && key !== 'original_role') extra[key] = field;
  const { role, content } = message;
  if (typeof content !== 'string' && !Array.isArray(content)) return 'content: expected a string or an array of blocks';
  if (role === 'assistant') {
    if (typeof content === 'string') {
      into.push({ ...extra, role: 'assistant', content });
      return undefined;
    }
    const blocks = emptyAssistantBlocks();
    for (const block of content) addAssistantBlock(blocks, block);
    into.push(assistantFromBlocks(blocks, extra));
    return undefined;
  }
  if (role === 'user') {
    const turn = userTurnMessages(content, extra);
    into.push(...turn.tools);
    if (turn.user) {
      const original = message.original_role;
      if (original === 'system' || original === 'developer') into.push({ ...turn.user, role: original, content: textContent(turn.user.content) });
      else into.push(turn.user);
    }
    return undefined;
  }
  into.push(message as Message); // an unknown role passes through unchanged (with a warning from the schema check)
  return undefined;
}

function textContent(content: string | ContentPart[]): string | { type: 'text'; text: string }[] {
  if (typeof content === 'string') return content;
  return content.map((p) => ({ type: 'text' as const, text: contentText([p]) }));
}

function toolDef(tool: Record<string, unknown>): ToolDef {
  const fn: ToolDef['function'] = { name: tool.name as string };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (isObject(tool.input_schema)) fn.parameters = tool.input_schema;
  return { type: 'function', function: fn };
}
