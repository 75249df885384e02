import type { Message } from '../model/message.js';
import { errorItem, finishTranscript, isObject, baseName } from './_items.js';
import { readJsonDocument } from './_json-stream.js';
import { fileError } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

const MESSAGE_OWN = new Set(['role', 'content', 'tool_calls', 'tool_call_ids', 'thought']);

/**
 * SWE-agent trajectories (`.traj`, one JSON object per file): one transcript per file, from `history`, the messages
 * the model saw.
 * - Messages keep their role and content as in the source: text-action runs put the assistant's thought and fenced
 *   command in `content` and the observation in a `user` message; function-calling runs have `tool_calls` and `tool`
 *   messages whose `tool_call_ids[0]` becomes `tool_call_id`.
 * - SWE-agent fields on a message (`agent`, `message_type`, `action`, `is_demo`...) are kept; `thought` is dropped
 *   when `content` already contains it (it always does in the real files).
 * - `info` (exit status, submission, model stats), `environment` and `replay_config` go to metadata. `trajectory` is
 *   derived data (each step's action, observation, response and state, which `history` already holds) and is not
 *   converted; its step count is kept as `metadata.trajectorySteps`.
 * Id: `<parent directory>/<file base>` (SWE-agent names runs by directory and files by instance, so the base alone
 * repeats across runs).
 */
export async function* readSweAgent(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const at = { file, line: 1, byteOffset: 0 };
  let value: unknown;
  try {
    value = await readJsonDocument(file, options.maxLineBytes);
  } catch (err) {
    yield fileError(at, err);
    return;
  }
  if (!isObject(value) || !Array.isArray(value.history)) {
    yield errorItem(at, 'E_SCHEMA', 'history: expected an array (a SWE-agent .traj object)');
    return;
  }
  const messages: Message[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < value.history.length; i++) {
    const entry: unknown = value.history[i];
    if (!isObject(entry) || typeof entry.role !== 'string') {
      yield errorItem(at, 'E_SCHEMA', `history[${i}].role: expected a message object with a string role`);
      return;
    }
    messages.push(convert(entry, i, warnings));
  }
  const metadata: Record<string, unknown> = { source: { format: 'swe-agent', file } };
  for (const key of ['info', 'environment', 'replay_config'] as const) if (value[key] !== undefined) metadata[key] = value[key];
  if (Array.isArray(value.trajectory)) metadata.trajectorySteps = value.trajectory.length;
  yield finishTranscript({ id: runId(file), messages, metadata, warnings }, at, 1);
}

function convert(entry: Record<string, unknown>, index: number, warnings: string[]): Message {
  const message: Record<string, unknown> = { role: entry.role, content: entry.content };
  if (entry.tool_calls !== undefined) message.tool_calls = entry.tool_calls;
  if (entry.role === 'tool') {
    const ids = Array.isArray(entry.tool_call_ids) ? entry.tool_call_ids.filter((id): id is string => typeof id === 'string') : [];
    if (ids.length === 0) {
      // An observation not tied to a call is what the model saw as a user turn.
      message.role = 'user';
      warnings.push(`history[${index}]: a tool message without tool_call_ids became a user message`);
    } else {
      message.tool_call_id = ids[0];
      if (ids.length > 1) warnings.push(`history[${index}]: observation answers ${ids.length} calls; kept for the first, the others get no result`);
    }
  }
  if (typeof entry.thought === 'string' && !(typeof entry.content === 'string' && entry.content.includes(entry.thought))) message.thought = entry.thought;
  for (const [key, value] of Object.entries(entry)) if (!MESSAGE_OWN.has(key)) message[key] = value;
  return message as Message;
}

function runId(file: string): string {
  const parts = file.split(/[\\/]/);
  const parent = parts.length > 1 ? parts[parts.length - 2] : '';
  return parent === '' || parent === '.' ? baseName(file) : `${parent}/${baseName(file)}`;
}
