import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readLines } from '../io/line-reader.js';
import { isObject } from './_items.js';
import type { ReadOptions } from './types.js';

/**
 * A subagent's file can log replies of the session that started it again, under their own `message.id` and
 * `requestId` (a compaction agent's `agent-acompact-*.jsonl` holds the history it summarises). Those are requests of
 * the session, billed once: ccusage keys a reply by its message and request ids across all files, and so does the
 * reader, by looking up the session's own file `<dir>/<session>.jsonl` beside `<dir>/<session>/subagents/`.
 */
const SUBAGENT_FILE = /[\\/]subagents[\\/]agent-[^\\/]+\.jsonl$/i;

/** The key ccusage dedups a reply by: its message id and request id, both recorded. */
export function replyKey(messageId: unknown, requestId: unknown): string | undefined {
  return typeof messageId === 'string' && typeof requestId === 'string' ? `${messageId}:${requestId}` : undefined;
}

const REQUEST_ID = Buffer.from('"requestId"');
/** The last files looked up, by path, with the size and time they had (a batch reads many subagents of one session). */
const recent = new Map<string, { size: number; mtimeMs: number; keys: ReadonlySet<string> }>();
const RECENT_FILES = 8;

/** The reply keys the session's own file logs, for a subagent file; empty for any other file or when there is none. */
export async function sessionReplyKeys(file: string, options: ReadOptions): Promise<ReadonlySet<string>> {
  if (!SUBAGENT_FILE.test(file)) return new Set();
  const sessionDir = dirname(dirname(file));
  const session = join(dirname(sessionDir), `${basename(sessionDir)}.jsonl`);
  let info;
  try {
    info = await stat(session);
  } catch {
    return new Set();
  }
  const hit = recent.get(session);
  if (hit && hit.size === info.size && hit.mtimeMs === info.mtimeMs) return hit.keys;
  const keys = new Set<string>();
  for await (const raw of readLines(session, { maxLineBytes: options.maxLineBytes })) {
    if (raw.bytes === null || raw.bytes.indexOf(REQUEST_ID) < 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw.bytes.toString('utf8'));
    } catch {
      continue; // the session's own reading reports it
    }
    if (!isObject(value) || value.type !== 'assistant' || !isObject(value.message)) continue;
    const key = replyKey(value.message.id, value.requestId);
    if (key !== undefined) keys.add(key);
  }
  recent.delete(session);
  recent.set(session, { size: info.size, mtimeMs: info.mtimeMs, keys });
  if (recent.size > RECENT_FILES) recent.delete(recent.keys().next().value as string);
  return keys;
}

/** One summary call of a session's compaction agent: the last reply its `agent-acompact-*.jsonl` logs. */
export interface CompactionAgentCall {
  /** The compaction agent's id (`acompact-…`): its file becomes the session's subagent transcript of that id. */
  agentId: string;
  timestamp: string;
  model?: string;
  usage: Record<string, unknown>;
}

const COMPACTION_AGENT_FILE = /^agent-acompact-[^\\/]+\.jsonl$/i;

/**
 * The summary calls of a session's compactions, for a session's own file `<dir>/<session>.jsonl`: Claude Code runs each
 * compaction as a subagent whose file `<dir>/<session>/subagents/agent-acompact-*.jsonl` logs the history it summarises
 * and, last, the summary call with its usage (the session's file holds no record of that call). In time order; none
 * for a subagent's file or when the folder holds no such file.
 */
export async function compactionAgentCalls(file: string, options: ReadOptions): Promise<CompactionAgentCall[]> {
  if (SUBAGENT_FILE.test(file) || !file.toLowerCase().endsWith('.jsonl')) return [];
  const folder = join(dirname(file), basename(file, '.jsonl'), 'subagents');
  let names: string[];
  try {
    names = (await readdir(folder)).filter((n) => COMPACTION_AGENT_FILE.test(n));
  } catch {
    return [];
  }
  const calls: CompactionAgentCall[] = [];
  for (const name of names) {
    let last: CompactionAgentCall | undefined;
    for await (const raw of readLines(join(folder, name), { maxLineBytes: options.maxLineBytes })) {
      if (raw.bytes === null || raw.bytes.indexOf(REQUEST_ID) < 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(raw.bytes.toString('utf8'));
      } catch {
        continue; // the agent file's own reading reports it
      }
      if (!isObject(value) || value.type !== 'assistant' || !isObject(value.message) || !isObject(value.message.usage)) continue;
      if (typeof value.timestamp !== 'string') continue;
      const model = typeof value.message.model === 'string' ? value.message.model : undefined;
      const agentId = typeof value.agentId === 'string' ? value.agentId : name.slice('agent-'.length, -'.jsonl'.length);
      last = { agentId, timestamp: value.timestamp, usage: value.message.usage, ...(model === undefined ? {} : { model }) };
    }
    if (last) calls.push(last);
  }
  return calls.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
}
