import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { isObject } from './_items.js';

// The records of pi's session files (badlogic/pi-mono packages/coding-agent/src/core/session-manager.ts and messages.ts,
// packages/ai/src/types.ts) and how each becomes canonical messages. OpenClaw writes the same files (it runs pi's
// session manager).

/** The texts pi wraps a summary in when it sends it to the model (messages.ts `convertToLlm`). */
export const COMPACTION_SUMMARY_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';
export const COMPACTION_SUMMARY_SUFFIX = '\n</summary>';
export const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
export const BRANCH_SUMMARY_SUFFIX = '</summary>';

/** The entry types a session file holds after its header (`SessionEntry`). */
const ENTRY_TYPES: ReadonlySet<string> = new Set([
  'message',
  'thinking_level_change',
  'model_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
]);

/**
 * pi's session header, the first line of every session file: `{type: "session", id, timestamp, cwd, version?}`
 * (`version` 2 or 3; v1 files have none). pi itself takes a file as a session only when its first line is
 * `type: "session"` with a string `id` (`isValidSessionFile`).
 */
export function isPiSessionHeader(value: unknown): boolean {
  if (!isObject(value) || value.type !== 'session' || typeof value.id !== 'string' || typeof value.timestamp !== 'string') return false;
  if (value.cwd !== undefined && typeof value.cwd !== 'string') return false;
  return value.version === undefined || (typeof value.version === 'number' && Number.isInteger(value.version) && value.version >= 1);
}

/** Whether a line after the header is one of pi's entries: a known `type`, and for v2 and later an `id`. */
export function isPiEntryType(type: unknown): type is string {
  return typeof type === 'string' && ENTRY_TYPES.has(type);
}

type Converted = { kind: 'messages'; messages: Message[] } | { kind: 'skipped'; reason: string } | { kind: 'error'; message: string };

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** User, custom and summary content: a string, or text and image blocks (one text block becomes a string). */
function userContent(content: unknown): string | ContentPart[] | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts: ContentPart[] = [];
  for (const block of content) {
    if (!isObject(block)) return undefined;
    if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string')
      parts.push({ type: 'image_url', image_url: { url: `data:${block.mimeType};base64,${block.data}` } });
    else return undefined;
  }
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

/**
 * pi's `Usage` `{input, output, cacheRead, cacheWrite, totalTokens, cost: {..., total}}` in the Anthropic field names
 * tcompact's recorded usage reads: pi's `input` is the input neither read from nor written to the cache.
 */
export function piUsage(u: Record<string, unknown>): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    input_tokens: num(u.input),
    cache_creation_input_tokens: num(u.cacheWrite),
    cache_read_input_tokens: num(u.cacheRead),
    output_tokens: num(u.output),
  };
  if (typeof u.totalTokens === 'number') usage.total_tokens = u.totalTokens;
  if (isObject(u.cost) && typeof u.cost.total === 'number') usage.cost = u.cost.total;
  return usage;
}

const isZeroUsage = (u: Record<string, unknown>) =>
  ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'].every((k) => u[k] === 0);

/**
 * An assistant message (`AssistantMessage`): text -> content, thinking -> reasoning_content (redacted or signature-only
 * blocks counted), toolCall -> tool_calls, usage mapped by {@link piUsage}. pi leaves replies that ended in `error` or
 * `aborted` out of every later prompt (packages/ai/src/providers/transform-messages.ts): they are marked `retried`
 * (billed, never sent again); one whose usage is all zeros is no priced call (`unpriced_request`, no `usage`).
 */
function assistant(m: Record<string, unknown>): Converted {
  if (!Array.isArray(m.content)) return { kind: 'error', message: 'message.content: expected an array of blocks' };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  let withoutText = 0;
  let redacted = 0;
  for (const [i, block] of m.content.entries()) {
    if (!isObject(block)) return { kind: 'error', message: `message.content[${i}]: expected a block` };
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      if (block.redacted === true) redacted++;
      else if (block.thinking.trim() !== '') reasoning.push(block.thinking);
      else if (typeof block.thinkingSignature === 'string' && block.thinkingSignature !== '') withoutText++;
    } else if (block.type === 'toolCall' && typeof block.id === 'string' && block.id !== '' && typeof block.name === 'string')
      calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) } });
    else return { kind: 'error', message: `message.content[${i}]: unsupported block ${JSON.stringify(block).slice(0, 80)}` };
  }
  const out: AssistantMessage = {
    role: 'assistant',
    content: texts.length === 0 ? null : texts.length === 1 ? texts[0] : texts.map((text) => ({ type: 'text', text })),
  };
  if (reasoning.length > 0) out.reasoning_content = reasoning.join('\n\n');
  if (calls.length > 0) out.tool_calls = calls;
  if (withoutText > 0) out.thinking_blocks_without_text = withoutText;
  if (redacted > 0) out.redacted_thinking_blocks = redacted;
  if (typeof m.model === 'string' && m.model !== '') out.model = m.model;
  if (typeof m.provider === 'string') out.provider = m.provider;
  if (typeof m.api === 'string') out.api = m.api;
  if (typeof m.stopReason === 'string') out.stop_reason = m.stopReason;
  if (typeof m.errorMessage === 'string') out.error_message = m.errorMessage;
  if (isObject(m.usage)) {
    // All zeros: the request failed before the provider counted anything (ccusage leaves it out too).
    const usage = piUsage(m.usage);
    if (isZeroUsage(usage)) out.unpriced_request = true;
    else out.usage = usage;
  }
  if (m.stopReason === 'error' || m.stopReason === 'aborted') out.retried = true;
  return { kind: 'messages', messages: [out] };
}

/** `ToolResultMessage` -> a tool message (`name` the tool, `is_error`). */
function toolResult(m: Record<string, unknown>): Converted {
  if (typeof m.toolCallId !== 'string' || m.toolCallId === '') return { kind: 'error', message: 'message.toolCallId: expected a non-empty string' };
  const content = userContent(m.content);
  if (content === undefined) return { kind: 'error', message: 'message.content: expected text and image blocks' };
  const out: ToolMessage = { role: 'tool', tool_call_id: m.toolCallId, content };
  if (typeof m.toolName === 'string') out.name = m.toolName;
  if (m.isError === true) out.is_error = true;
  return { kind: 'messages', messages: [out] };
}

/** A `!` command the user ran (`BashExecutionMessage`), as pi sends it: user text (`bashExecutionToText`). */
function bashExecution(m: Record<string, unknown>): Converted {
  if (typeof m.command !== 'string') return { kind: 'error', message: 'message.command: expected a string' };
  // `!!` runs a command whose output the model never sees.
  if (m.excludeFromContext === true) return { kind: 'skipped', reason: 'record:message/bashExecution-excluded' };
  const output = typeof m.output === 'string' ? m.output : '';
  let text = `Ran \`${m.command}\`\n${output ? `\`\`\`\n${output}\n\`\`\`` : '(no output)'}`;
  if (m.cancelled === true) text += '\n\n(command cancelled)';
  else if (typeof m.exitCode === 'number' && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`;
  if (m.truncated === true && typeof m.fullOutputPath === 'string') text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
  return { kind: 'messages', messages: [{ role: 'user', content: text, bash_execution: true }] };
}

/** A message an extension injected (`custom`; `hookMessage` before v3): user content the client added. */
function injected(content: unknown, where: string): Converted {
  const converted = userContent(content);
  if (converted === undefined) return { kind: 'error', message: `${where}: expected a string or text and image blocks` };
  return { kind: 'messages', messages: [{ role: 'user', content: converted, is_meta: true }] };
}

/** The canonical messages of a `message` entry's `message` (`AgentMessage`). */
export function messageEntry(m: unknown): Converted {
  if (!isObject(m) || typeof m.role !== 'string') return { kind: 'error', message: 'message: expected an object with a string role' };
  switch (m.role) {
    case 'user': {
      const content = userContent(m.content);
      if (content === undefined) return { kind: 'error', message: 'message.content: expected a string or text and image blocks' };
      return { kind: 'messages', messages: [{ role: 'user', content }] };
    }
    case 'assistant':
      return assistant(m);
    case 'toolResult':
      return toolResult(m);
    case 'bashExecution':
      return bashExecution(m);
    case 'custom':
    case 'hookMessage':
      return injected(m.content, 'message.content');
    default:
      return { kind: 'error', message: `message.role: unknown role "${m.role}"` };
  }
}

/** A `custom_message` entry: an extension's message, which pi puts in the context as user content. */
export function customMessageEntry(e: Record<string, unknown>): Converted {
  return injected(e.content, 'content');
}
