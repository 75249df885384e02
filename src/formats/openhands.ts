import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import type { ToolDef } from '../model/transcript.js';
import { baseName, finishTranscript, isObject } from './_items.js';
import { type Accepted, acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * OpenHands event streams (a JSON array of events: `{id, source, action|observation, message, args|content, extras,
 * cause, tool_call_metadata}`): one transcript per file; each event is one accounting unit.
 * - An action with `tool_call_metadata` is a tool call of an assistant message: its `tool_call_id` and
 *   `function_name`, its arguments taken from the recorded model response (`model_response.choices[0].message`),
 *   whose text becomes the assistant's `content`. Actions of one model response (same `model_response.id`) share one
 *   assistant message, which keeps the response's `usage` and `model`.
 * - An observation with `tool_call_metadata` is that call's `tool` message (`name` = function name, `is_error` for
 *   `error` observations); a command's output gets the prefix and suffix OpenHands adds for the model.
 * - `message` actions are user or assistant messages by `source`; a `system` action is the system message; a `finish`
 *   action without tool metadata is an assistant message. `finish` called as a tool has no observation: the pairing
 *   repair gives it a `[no result recorded]` result (counted as `missingResultFilled`).
 * - Other events (agent state changes, `null` observations, recalls...) are skipped as
 *   `record:action/<name>` or `record:observation/<name>`.
 */
export async function* readOpenHands(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new EventBuilder();
  const { first, units } = yield* acceptRecords(readRecords(file, options), ({ value }) =>
    isObject(value) ? builder.accept(value) : { kind: 'error', message: 'expected an OpenHands event object' },
  );
  if (!first) return;
  const metadata: Record<string, unknown> = { source: { format: 'openhands', file } };
  if (builder.models.length > 0) metadata.models = builder.models;
  const draft = { id: baseName(file), messages: builder.messages, metadata, tools: builder.tools };
  yield finishTranscript(draft, { file, line: 1, byteOffset: 0, record: first.record }, units);
}

class EventBuilder {
  readonly messages: Message[] = [];
  readonly models: string[] = [];
  tools: ToolDef[] | undefined;
  /** The assistant message of the latest model response, while its tool calls may still come. */
  private open: { responseId: string | undefined; message: AssistantMessage } | undefined;

  accept(event: Record<string, unknown>): Accepted {
    const args = isObject(event.args) ? event.args : {};
    const meta = isObject(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
    if (typeof event.action === 'string') {
      if (meta) return this.toolCall(event, args, meta);
      if (event.action === 'message') return this.message(event, args);
      if (event.action === 'system') return this.system(event, args);
      if (event.action === 'finish') return this.push({ role: 'assistant', content: text(args.final_thought) ?? text(event.message) ?? '' });
      return { kind: 'skipped', reason: `record:action/${event.action}` };
    }
    if (typeof event.observation === 'string') {
      if (meta) return this.toolResult(event, meta);
      return { kind: 'skipped', reason: `record:observation/${event.observation}` };
    }
    return { kind: 'error', message: 'an OpenHands event needs a string "action" or "observation"' };
  }

  private push(message: Message): Accepted {
    this.open = undefined;
    this.messages.push(message);
    return { kind: 'kept' };
  }

  private message(event: Record<string, unknown>, args: Record<string, unknown>): Accepted {
    const body = text(args.content) ?? text(event.message) ?? '';
    if (event.source === 'agent') return this.push({ role: 'assistant', content: body });
    const images = Array.isArray(args.image_urls) ? args.image_urls.filter((u): u is string => typeof u === 'string') : [];
    if (images.length === 0) return this.push({ role: 'user', content: body });
    const parts: ContentPart[] = [{ type: 'text', text: body }, ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))];
    return this.push({ role: 'user', content: parts });
  }

  private system(event: Record<string, unknown>, args: Record<string, unknown>): Accepted {
    if (Array.isArray(args.tools)) this.tools = args.tools as ToolDef[];
    return this.push({ role: 'system', content: text(args.content) ?? text(event.message) ?? '' });
  }

  private toolCall(event: Record<string, unknown>, args: Record<string, unknown>, meta: Record<string, unknown>): Accepted {
    if (typeof meta.tool_call_id !== 'string' || typeof meta.function_name !== 'string') {
      return { kind: 'error', message: 'tool_call_metadata: expected string tool_call_id and function_name' };
    }
    const response = isObject(meta.model_response) ? meta.model_response : {};
    const choice = Array.isArray(response.choices) && isObject(response.choices[0]) ? response.choices[0] : {};
    const said = isObject(choice.message) ? choice.message : {};
    const recorded = Array.isArray(said.tool_calls) ? said.tool_calls.find((c) => isObject(c) && c.id === meta.tool_call_id) : undefined;
    const fn = isObject(recorded) && isObject(recorded.function) ? recorded.function : {};
    const call: ToolCall = {
      id: meta.tool_call_id,
      type: 'function',
      function: { name: meta.function_name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(withoutThought(args)) },
    };
    const responseId = typeof response.id === 'string' ? response.id : undefined;
    if (this.open && responseId !== undefined && this.open.responseId === responseId) {
      this.open.message.tool_calls = [...(this.open.message.tool_calls ?? []), call];
      return { kind: 'kept' };
    }
    const message: AssistantMessage = { role: 'assistant', content: text(said.content) ?? (text(args.thought) || null), tool_calls: [call] };
    if (typeof said.reasoning_content === 'string' && said.reasoning_content !== '') message.reasoning_content = said.reasoning_content;
    if (typeof response.model === 'string') {
      message.model = response.model;
      if (!this.models.includes(response.model)) this.models.push(response.model);
    }
    if (isObject(response.usage)) message.usage = response.usage;
    if (typeof event.timestamp === 'string') message.timestamp = event.timestamp;
    this.push(message);
    this.open = { responseId, message };
    return { kind: 'kept' };
  }

  private toolResult(event: Record<string, unknown>, meta: Record<string, unknown>): Accepted {
    if (typeof meta.tool_call_id !== 'string') return { kind: 'error', message: 'tool_call_metadata.tool_call_id: expected a string' };
    const extras = isObject(event.extras) ? event.extras : {};
    let content = text(event.content) ?? '';
    if (event.observation === 'run' && isObject(extras.metadata)) {
      content = `${text(extras.metadata.prefix) ?? ''}${content}${text(extras.metadata.suffix) ?? ''}`;
    }
    if (content === '') content = text(event.message) ?? '';
    // Tool messages do not close the open response: its later actions still join the same assistant message.
    const message: ToolMessage = { role: 'tool', tool_call_id: meta.tool_call_id, content };
    if (typeof meta.function_name === 'string') message.name = meta.function_name;
    if (event.observation === 'error') message.is_error = true;
    this.messages.push(message);
    return { kind: 'kept' };
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function withoutThought(args: Record<string, unknown>): Record<string, unknown> {
  const { thought: _thought, ...rest } = args;
  return rest;
}
