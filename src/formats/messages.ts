import type { Message } from '../model/message.js';
import type { ToolDef } from '../model/transcript.js';
import { baseName, errorItem, finishTranscript, isObject, type DraftTranscript } from './_items.js';
import { peekJson } from './_json-peek.js';
import { streamJsonArray } from './_json-stream.js';
import { fileError, isJsonl, readRecords, type SourceRecord } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

const OWN_KEYS = new Set(['id', 'messages', 'traj', 'tools', 'metadata']);

/**
 * Plain OpenAI chat `messages` lists (the `messages` format), in JSON or JSONL:
 * - records that are objects with a `messages` or `traj` array (tau-bench runs: `{task_id, reward, info, traj, trial}`),
 *   one transcript per record; their other fields (reward, info...) go to `metadata`;
 * - records that are bare arrays of messages, one transcript each;
 * - a JSON file that is one array of messages: one transcript.
 * Ids: the record's `id`; else `<file base>#task-<task_id>-trial-<trial>` when `task_id` is present; else
 * `<file base>#<n>` with n the element index (JSON array) or the line number (JSONL).
 */
export async function* readMessages(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  if (!isJsonl(file, options) && (await isOneMessageArray(file))) {
    yield* readOneMessageArray(file);
    return;
  }
  for await (const entry of readRecords(file, options)) {
    if (entry.kind === 'item') yield entry.item;
    else yield messagesRecord(file, entry.record);
  }
}

function messagesRecord(file: string, record: SourceRecord): InputItem {
  const draft = draftFromRecord(file, record);
  if (typeof draft === 'string') return errorItem(record.at, 'E_SCHEMA', `${record.where}${draft}`);
  return finishTranscript(draft, record.at, 1, record.where);
}

function draftFromRecord(file: string, { value, index }: SourceRecord): DraftTranscript | string {
  const base = baseName(file);
  const suffix = index === undefined ? '' : `#${index}`;
  if (Array.isArray(value)) return { id: `${base}${suffix}`, messages: value as Message[], metadata: { source: { format: 'messages', file } } };
  if (!isObject(value)) return 'expected an object with a "messages" or "traj" array, or an array of messages';
  const messages = Array.isArray(value.messages) ? value.messages : Array.isArray(value.traj) ? value.traj : undefined;
  if (!messages) return 'messages: expected an array (or a "traj" array)';
  let id: string;
  if (typeof value.id === 'string' && value.id !== '') id = value.id;
  else if (value.task_id !== undefined && (typeof value.task_id === 'number' || typeof value.task_id === 'string')) {
    id = `${base}#task-${value.task_id}${value.trial === undefined ? '' : `-trial-${String(value.trial)}`}`;
  } else id = `${base}${suffix}`;
  const metadata: Record<string, unknown> = { source: { format: 'messages', file }, ...(isObject(value.metadata) ? value.metadata : {}) };
  for (const [key, field] of Object.entries(value)) if (!OWN_KEYS.has(key)) metadata[key] = field;
  const draft: DraftTranscript = { id, messages: messages as Message[], metadata };
  if (value.tools !== undefined) draft.tools = value.tools as ToolDef[];
  return draft;
}

/** A JSON file whose top level is an array of messages (objects with a `role`) is one transcript. */
async function isOneMessageArray(file: string): Promise<boolean> {
  try {
    const sig = await peekJson(file);
    return sig.root === 'array' && sig.first === 'object' && sig.keys.includes('role');
  } catch {
    return false;
  }
}

async function* readOneMessageArray(file: string): AsyncGenerator<InputItem> {
  const at = { file, line: 1, byteOffset: 0 };
  const messages: Message[] = [];
  try {
    for await (const { value } of streamJsonArray(file)) messages.push(value as Message);
  } catch (err) {
    yield fileError({ ...at, record: messages.length }, err, messages.length + 1);
    return;
  }
  yield finishTranscript({ id: baseName(file), messages, metadata: { source: { format: 'messages', file } } }, at, messages.length);
}
