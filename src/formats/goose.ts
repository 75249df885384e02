import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { baseName, errorItem, finishTranscript, isObject, summaryCompactions } from './_items.js';
import { acceptRecords, keptUnless, readRecords } from './_records.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * goose sessions, built from goose's source (crates/goose/src/conversation/message.rs `Message`, `MessageContent`,
 * tool_result_serde.rs; session/legacy.rs; the `Session` struct of session_manager.rs): one transcript per file.
 * - Two layouts: the JSON Lines session file of earlier versions (`sessions/<id>.jsonl`: a metadata line
 *   `{working_dir, description, message_count, total_tokens, ...}`, then one message per line; each line a unit), and a
 *   `Session` as JSON (`{id, working_dir, description, ..., conversation: [messages]}`, one unit).
 * - A message `{id?, role, created, content: [...], metadata: {userVisible, agentVisible}}`: `text` -> text, `image` ->
 *   image part, `thinking` -> `reasoning_content` (`redactedThinking` counted), `toolRequest` / `frontendToolRequest`
 *   -> tool calls (`toolCall.value.name`, `JSON.stringify(arguments)`; a call goose could not parse, status `error`,
 *   keeps its error as arguments under the name `invalid_tool_call`), `toolResponse` -> `tool` messages placed before
 *   the rest of the user turn (`toolResult.value.content`, or the legacy content list; `isError` or status `error` ->
 *   `is_error`). Confirmation requests, required actions and system notifications are the UI's: counted in
 *   metadata.skippedContent by type.
 * - Visibility: a message the model no longer sees keeps `agent_visible: false`, one only the model sees
 *   `user_visible: false`. goose compacts by hiding the old messages from the model and adding an agent-only summary:
 *   the first agent-only message right after hidden ones is a compaction point, marked `is_compact_summary` and listed
 *   in metadata.compactions.
 */
export async function* readGoose(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new SessionBuilder();
  const { first, units } = yield* acceptRecords(readRecords(file, options), ({ value }) => keptUnless(builder.accept(value)));
  if (!first) return;
  const { messages, summaries } = builder.finish();
  const metadata = { source: { format: 'goose', file }, ...builder.metadata };
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(file);
  yield finishTranscript({ id, messages, metadata, indexedMetadata: summaryCompactions(summaries) }, first, units);
}

/**
 * One goose session from its records, the session's metadata then its messages, as one unit: how goose's database
 * (goose-db.ts) gives a session back, each row's JSON read as the session file's lines are. `metadata` joins the
 * transcript's metadata (the database's usage, model, session type).
 */
export function gooseSession(records: readonly unknown[], at: SourcePosition, metadata: Record<string, unknown>): InputItem {
  const builder = new SessionBuilder();
  for (const [i, record] of records.entries()) {
    const error = builder.accept(record);
    if (error !== undefined) return errorItem(at, 'E_SCHEMA', `${at.file}: session ${String(builder.metadata.sessionId)}, record ${i}: ${error}`);
  }
  const { messages, summaries } = builder.finish();
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(at.file);
  return finishTranscript({ id, messages, metadata: { ...metadata, ...builder.metadata }, indexedMetadata: summaryCompactions(summaries) }, at, 1);
}

const META_KEYS = [
  'working_dir',
  'description',
  'schedule_id',
  'project_id',
  'message_count',
  'total_tokens',
  'input_tokens',
  'output_tokens',
  'accumulated_total_tokens',
  'accumulated_input_tokens',
  'accumulated_output_tokens',
  'created_at',
  'updated_at',
  'provider_name',
] as const;

class SessionBuilder {
  readonly metadata: Record<string, unknown> = {};
  private readonly messages: Message[] = [];
  private readonly summaries: number[] = [];
  private readonly skipped: Record<string, number> = {};
  private redactedThinking = 0;
  /** The previous message was hidden from the model (compacted away). */
  private afterHidden = false;

  /** One record: session metadata, a message, or a whole session; returns an error message when it is none. */
  accept(value: unknown): string | undefined {
    if (!isObject(value)) return 'expected a goose session record (an object)';
    if (typeof value.role === 'string') return this.message(value);
    if (typeof value.working_dir !== 'string') return 'expected session metadata (working_dir) or a message (role)';
    if (typeof value.id === 'string') this.metadata.sessionId = value.id;
    for (const key of META_KEYS) if (value[key] !== undefined && value[key] !== null) this.metadata[key] = value[key];
    if (Array.isArray(value.conversation)) {
      for (const [i, m] of value.conversation.entries()) {
        const error = isObject(m) ? this.message(m) : 'expected a message';
        if (error !== undefined) return `conversation[${i}]: ${error}`;
      }
    }
    return undefined;
  }

  private message(m: Record<string, unknown>): string | undefined {
    if ((m.role !== 'user' && m.role !== 'assistant') || !Array.isArray(m.content)) return 'a message needs role "user" or "assistant" and a content array';
    const visibility = isObject(m.metadata) ? m.metadata : {};
    const extra: Record<string, unknown> = {};
    if (typeof m.created === 'number') extra.created = m.created;
    if (visibility.agentVisible === false) extra.agent_visible = false;
    if (visibility.userVisible === false) extra.user_visible = false;
    const start = this.messages.length;
    if (m.role === 'assistant') this.assistant(m.content, extra);
    else this.user(m.content, extra);
    const agentOnly = visibility.agentVisible !== false && visibility.userVisible === false;
    if (agentOnly && this.afterHidden && this.messages.length > start) {
      this.messages[this.messages.length - 1].is_compact_summary = true;
      this.summaries.push(this.messages.length - 1);
    }
    this.afterHidden = visibility.agentVisible === false;
    return undefined;
  }

  private skip(type: unknown): void {
    const key = typeof type === 'string' ? type : 'unknown';
    this.skipped[key] = (this.skipped[key] ?? 0) + 1;
  }

  private assistant(content: unknown[], extra: Record<string, unknown>): void {
    const texts: string[] = [];
    const reasoning: string[] = [];
    const calls: ToolCall[] = [];
    for (const c of content) {
      if (!isObject(c)) continue;
      if (c.type === 'text' && typeof c.text === 'string') texts.push(c.text);
      else if (c.type === 'thinking' && typeof c.thinking === 'string') {
        if (c.thinking !== '') reasoning.push(c.thinking);
      } else if (c.type === 'redactedThinking') this.redactedThinking++;
      else if ((c.type === 'toolRequest' || c.type === 'frontendToolRequest') && typeof c.id === 'string') calls.push(toolCall(c.id, c.toolCall));
      else this.skip(c.type);
    }
    const message: AssistantMessage = {
      role: 'assistant',
      content: texts.length === 0 ? null : texts.length === 1 ? texts[0] : texts.map((text) => ({ type: 'text', text })),
    };
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
    if (calls.length > 0) message.tool_calls = calls;
    this.messages.push(Object.assign(message, extra));
  }

  private user(content: unknown[], extra: Record<string, unknown>): void {
    const parts: ContentPart[] = [];
    const results: ToolMessage[] = [];
    for (const c of content) {
      if (!isObject(c)) continue;
      if (c.type === 'toolResponse' && typeof c.id === 'string') results.push(Object.assign(toolResult(c.id, c.toolResult), extra));
      else {
        const part = contentPart(c);
        if (part) parts.push(part);
        else this.skip(c.type);
      }
    }
    this.messages.push(...results);
    if (parts.length > 0 || results.length === 0)
      this.messages.push(Object.assign({ role: 'user' as const, content: parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts }, extra));
  }

  finish(): { messages: Message[]; summaries: number[] } {
    if (Object.keys(this.skipped).length > 0) this.metadata.skippedContent = this.skipped;
    if (this.redactedThinking > 0) this.metadata.redactedThinking = this.redactedThinking;
    return { messages: this.messages, summaries: this.summaries };
  }
}

/** `{status: "success", value: {name, arguments}}` or `{status: "error", error}` (tool_result_serde.rs). */
function toolCall(id: string, call: unknown): ToolCall {
  if (isObject(call) && call.status === 'success' && isObject(call.value) && typeof call.value.name === 'string')
    return { id, type: 'function', function: { name: call.value.name, arguments: JSON.stringify(call.value.arguments ?? {}) } };
  const error = isObject(call) && typeof call.error === 'string' ? call.error : JSON.stringify(call ?? null);
  return { id, type: 'function', function: { name: 'invalid_tool_call', arguments: JSON.stringify({ error }) } };
}

/** `{status: "success", value: CallToolResult | Content[]}` or `{status: "error", error}`. */
function toolResult(id: string, result: unknown): ToolMessage {
  if (isObject(result) && result.status === 'success') {
    const value = result.value;
    const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.content) ? value.content : [];
    const parts = list.filter(isObject).map((c) => contentPart(c) ?? { type: 'text' as const, text: JSON.stringify(c) });
    const message: ToolMessage = { role: 'tool', tool_call_id: id, content: parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts };
    if (isObject(value) && value.isError === true) message.is_error = true;
    return message;
  }
  const error = isObject(result) && typeof result.error === 'string' ? result.error : JSON.stringify(result ?? null);
  return { role: 'tool', tool_call_id: id, content: error, is_error: true };
}

/** MCP content: text, image (base64 with mimeType), embedded resource (its text). */
function contentPart(c: Record<string, unknown>): ContentPart | undefined {
  if (c.type === 'text' && typeof c.text === 'string') return { type: 'text', text: c.text };
  if (c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string')
    return { type: 'image_url', image_url: { url: `data:${c.mimeType};base64,${c.data}` } };
  if (c.type === 'resource' && isObject(c.resource)) {
    if (typeof c.resource.text === 'string') return { type: 'text', text: c.resource.text };
    if (typeof c.resource.blob === 'string') return { type: 'text', text: `[Binary content: ${c.resource.blob}]` };
  }
  return undefined;
}
