import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ContentPart } from '../model/content.js';
import type { Message, ToolCall } from '../model/message.js';
import { errorItem, finishTranscript, isObject, skippedItem } from './_items.js';
import { readJsonl, lineItem } from './_jsonl.js';
import type { JsonSignature } from './_json-peek.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * Kimi CLI sessions (MoonshotAI/kimi-cli), `~/.kimi/sessions/<md5 of the work dir>/<session id>/`: the model's
 * history in `context.jsonl` (src/kimi_cli/soul/context.py) and the session's events in `wire.jsonl`
 * (src/kimi_cli/wire/file.py). One transcript per session, read when its `context.jsonl` is; id the session folder.
 * - `context.jsonl` lines are kosong `Message`s (`{role, content: [parts], tool_calls?, tool_call_id?}`: `text` ->
 *   text, `think` -> `reasoning_content`, `image_url` -> image part) and Kimi's own records: `_system_prompt` (the
 *   system message), `_checkpoint {id}` and `_usage {token_count}` (bookkeeping, counted in metadata).
 * - The file rotates (`utils/path.py` `next_available_rotation`: `context_1.jsonl`, `context_2.jsonl`... oldest
 *   first) when Kimi compacts (`KimiSoul.compact_context`: the new file holds the summary, a user message starting
 *   `<system>Previous context has been compacted`, and the last messages it preserved), when the agent reverts to a
 *   checkpoint (`Context.revert_to`: the new file repeats the history up to it) and on `/clear` (`Context.clear`). The
 *   session is the rotated files in order, then `context.jsonl`. What a compaction or a revert put in place of the
 *   history is marked `is_compact_summary` and listed in metadata.compactions (`replacementFrom`/`replacementTo`),
 *   so `simulate --policy source` starts the context over there; a `/clear` is listed too, with an empty replacement
 *   (`cleared`), and counted in metadata.clears.
 * - Usage per model call: each `StatusUpdate` of `wire.jsonl` with a `token_usage` (`input_other`, `input_cache_read`,
 *   `input_cache_creation`, `output`: kosong `TokenUsage`) is one step, one assistant message, in order (what
 *   ccusage's Kimi reader sums). Without a wire log, the `_usage` records around each reply (its input before, input and
 *   output after, `KimiSoul._step` and `_grow_context`) give its input and output.
 * - `kimi.json` (the share folder's work directories) is one unit skipped as `record:kimi/work-dirs`.
 * - A rotated file or a wire log read alone is part of its session: its lines are skipped (`record:kimi/rotated-context`,
 *   `record:kimi/wire`) when the session's `context.jsonl` is beside it.
 */
export async function* readKimi(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const dir = dirname(file);
  const name = basename(file);
  if (name === 'kimi.json') {
    // The share folder's list of work directories: what the sessions' folder names hash, read with each session.
    yield skippedItem({ file, line: 1, byteOffset: 0 }, 'record:kimi/work-dirs');
    return;
  }
  const siblings = await listNames(dir);
  if (name !== 'context.jsonl' && siblings.includes('context.jsonl')) {
    yield* skipAll(file, options, name === 'wire.jsonl' ? 'record:kimi/wire' : 'record:kimi/rotated-context');
    return;
  }
  if (name === 'wire.jsonl') {
    yield errorItem(
      { file, line: 1, byteOffset: 0 },
      'E_FORMAT',
      `${file}: a Kimi wire log is read with its session's context.jsonl, which is not beside it`,
      await countAll(file, options),
    );
    return;
  }
  const chain = rotatedFiles(siblings, name).map((n) => join(dir, n));
  const builder = new SessionBuilder();
  const warnings: string[] = [];
  let first: SourcePosition | undefined;
  let units = 0;
  for (const [i, path] of chain.entries()) {
    const own = path === file;
    builder.startFile(i);
    for await (const entry of readJsonl(path, options)) {
      // A rotated file's lines are accounted for where it is read itself (as skipped, or its bad lines as errors).
      if (entry.kind !== 'value') {
        if (own) yield lineItem(entry);
        continue;
      }
      const problem = builder.accept(entry.value);
      if (!own) {
        if (problem !== undefined) warnings.push(`${basename(path)} line ${entry.at.line}: ${problem}`);
      } else if (problem !== undefined) yield errorItem(entry.at, 'E_SCHEMA', problem);
      else {
        first ??= entry.at;
        units++;
      }
    }
    builder.endFile();
  }
  if (!first || builder.empty()) return;
  const wire = siblings.includes('wire.jsonl') ? await wireSteps(join(dir, 'wire.jsonl')) : undefined;
  const { messages, mismatch } = builder.finish(wire);
  if (mismatch) warnings.push(mismatch);
  const sessionId = basename(dir);
  const metadata: Record<string, unknown> = { source: { format: 'kimi', file }, sessionId, workDirHash: basename(dirname(dir)), ...builder.metadata() };
  const workDir = await workDirOf(dir);
  if (workDir !== undefined) metadata.cwd = workDir;
  if (wire === undefined) metadata.usageFrom = 'context';
  yield finishTranscript({ id: sessionId, messages, metadata, warnings, indexedMetadata: builder.compactions() }, first, units);
}

/** Whether a JSON Lines record is Kimi's: a context record (`_system_prompt`, `_checkpoint`, `_usage`) or a wire log line. */
export function isKimiRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.role === '_system_prompt') return typeof value.content === 'string';
  if (value.role === '_checkpoint') return typeof value.id === 'number';
  if (value.role === '_usage') return typeof value.token_count === 'number';
  if (value.type === 'metadata') return typeof value.protocol_version === 'string' && Object.keys(value).length === 2;
  return typeof value.timestamp === 'number' && isObject(value.message) && typeof value.message.type === 'string' && 'payload' in value.message;
}

/** Whether a whole-file JSON document is Kimi CLI's `kimi.json` (its work directories, src/kimi_cli/metadata.py). */
export function isKimiMetadataSignature(file: string, sig: JsonSignature): boolean {
  return sig.root === 'object' && /(^|[\\/])kimi\.json$/.test(file) && sig.keys.includes('work_dirs');
}

const ROTATED = /^context_(\d+)\.jsonl$/;

/** The rotated context files then `context.jsonl`, oldest first; a rotated file read alone ends its own chain. */
function rotatedFiles(names: string[], last: string): string[] {
  const rotated = names
    .map((n) => [n, ROTATED.exec(n)?.[1]] as const)
    .filter((e): e is readonly [string, string] => e[1] !== undefined)
    .map(([n, k]) => [n, Number(k)] as const)
    .sort((a, b) => a[1] - b[1]);
  const upTo = ROTATED.exec(last);
  const before = rotated.filter(([, k]) => upTo === null || k < Number(upTo[1])).map(([n]) => n);
  return [...before, last];
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function* skipAll(file: string, options: ReadOptions, reason: string): AsyncGenerator<InputItem> {
  for await (const entry of readJsonl(file, options)) yield entry.kind === 'value' ? skippedItem(entry.at, reason) : lineItem(entry);
}

async function countAll(file: string, options: ReadOptions): Promise<number> {
  let n = 0;
  for await (const _ of readJsonl(file, options)) n++;
  return n;
}

/** One model call's usage as the wire log records it (kosong `TokenUsage`), with its time. */
interface WireStep {
  usage: Record<string, number>;
  timestamp?: string;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The steps of a wire log: its top-level `StatusUpdate`s with a `token_usage` (a subagent's come wrapped, and are not the session's). */
async function wireSteps(file: string): Promise<WireStep[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const steps: WireStep[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('StatusUpdate')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(value) || !isObject(value.message) || value.message.type !== 'StatusUpdate' || !isObject(value.message.payload)) continue;
    const u = value.message.payload.token_usage;
    if (!isObject(u)) continue;
    const usage = {
      input_tokens: num(u.input_other),
      cache_creation_input_tokens: num(u.input_cache_creation),
      cache_read_input_tokens: num(u.input_cache_read),
      output_tokens: num(u.output),
    };
    if (Object.values(usage).every((n) => n === 0)) continue;
    steps.push({ usage, ...(typeof value.timestamp === 'number' ? { timestamp: new Date(value.timestamp * 1000).toISOString() } : {}) });
  }
  return steps;
}

/** The work directory whose sessions folder this is: `kimi.json`'s `work_dirs` entry whose path hashes (MD5) to its name (src/kimi_cli/metadata.py). */
async function workDirOf(sessionDir: string): Promise<string | undefined> {
  const hashDir = basename(dirname(sessionDir));
  const root = dirname(dirname(dirname(sessionDir)));
  try {
    const meta = JSON.parse(await readFile(join(root, 'kimi.json'), 'utf8')) as { work_dirs?: { path?: unknown; kaos?: unknown }[] };
    for (const wd of meta.work_dirs ?? []) {
      if (typeof wd.path !== 'string') continue;
      const hash = createHash('md5').update(wd.path, 'utf8').digest('hex');
      if (hashDir === hash || hashDir === `${String(wd.kaos)}_${hash}`) return wd.path;
    }
  } catch {
    // No metadata file (a session folder copied alone): no work directory.
  }
  return undefined;
}

const COMPACTED = '<system>Previous context has been compacted';

interface Entry {
  message: Message;
  /** The `_usage` token count right before it (a reply's input) and right after it (its input and output). */
  usageBefore?: number;
  usageAfter?: number;
}

class SessionBuilder {
  private system: string | undefined;
  private readonly entries: Entry[] = [];
  /** The messages of the file being read, and where that file's messages start. */
  private fileStart = 0;
  private fileIndex = 0;
  private fileMessages: Message[] = [];
  private previousFile: Message[] = [];
  private lastUsage: number | undefined;
  private pendingAfter: Entry | undefined;
  private usageRecords = 0;
  private checkpoints = 0;
  private clears = 0;
  private replacements: { from: number; to: number; summary: boolean; cleared?: true }[] = [];
  /** In a compacted file, the messages before its first `_usage` are what the compaction kept. */
  private replacing: { from: number } | undefined;

  startFile(index: number): void {
    this.fileIndex = index;
    this.fileStart = this.entries.length;
    this.fileMessages = [];
    this.lastUsage = undefined;
    this.pendingAfter = undefined;
  }

  accept(value: unknown): string | undefined {
    if (!isObject(value) || typeof value.role !== 'string') return 'expected a Kimi context record (an object with a role)';
    switch (value.role) {
      case '_system_prompt':
        if (typeof value.content !== 'string') return '_system_prompt: content is not a string';
        this.system ??= value.content;
        return undefined;
      case '_checkpoint':
        this.checkpoints++;
        return undefined;
      case '_usage':
        if (typeof value.token_count !== 'number') return '_usage: token_count is not a number';
        this.usageRecords++;
        if (this.pendingAfter) this.pendingAfter.usageAfter = value.token_count;
        this.pendingAfter = undefined;
        this.lastUsage = value.token_count;
        this.closeReplacement();
        return undefined;
    }
    const message = toMessage(value);
    if (typeof message === 'string') return message;
    const entry: Entry = { message };
    if (message.role === 'assistant' && this.lastUsage !== undefined) {
      entry.usageBefore = this.lastUsage;
      this.pendingAfter = entry;
    } else this.pendingAfter = undefined;
    this.lastUsage = undefined;
    if (this.fileIndex > 0 && this.fileMessages.length === 0) this.openReplacement(message);
    this.fileMessages.push(message);
    this.entries.push(entry);
    this.extendCopy();
    return undefined;
  }

  /** The first message of a rotated file's successor: a compaction summary starts a replacement; a copy is found as it grows. */
  private openReplacement(first: Message): void {
    if (first.role === 'user' && textOf(first).startsWith(COMPACTED)) this.replacing = { from: this.entries.length };
  }

  private closeReplacement(): void {
    if (!this.replacing) return;
    if (this.entries.length > this.replacing.from) this.replacements.push({ from: this.replacing.from, to: this.entries.length, summary: true });
    this.replacing = undefined;
  }

  /** A reverted file repeats the previous file's first messages: the run of equal messages at its start is a copy. */
  private copy: { from: number; to: number } | undefined;
  private extendCopy(): void {
    if (this.fileIndex === 0 || this.replacing) return;
    const k = this.fileMessages.length - 1;
    const same = k < this.previousFile.length && JSON.stringify(this.previousFile[k]) === JSON.stringify(this.fileMessages[k]);
    if (k === 0) this.copy = same ? { from: this.fileStart, to: this.fileStart + 1 } : undefined;
    else if (same && this.copy && this.copy.to === this.fileStart + k) this.copy.to++;
  }

  endFile(): void {
    this.closeReplacement();
    if (this.copy) this.replacements.push({ ...this.copy, summary: false });
    else if (this.fileIndex > 0 && !this.replacements.some((r) => r.from === this.fileStart)) {
      // `/clear` (slash.py `clear`): the new file starts with the system prompt alone; the context starts over empty.
      this.clears++;
      this.replacements.push({ from: this.fileStart, to: this.fileStart, summary: false, cleared: true });
    }
    this.copy = undefined;
    this.previousFile = this.fileMessages;
  }

  empty(): boolean {
    return this.entries.length === 0 && this.system === undefined;
  }

  metadata(): Record<string, unknown> {
    const out: Record<string, unknown> = { checkpoints: this.checkpoints, usageRecords: this.usageRecords };
    if (this.clears > 0) out.clears = this.clears;
    return out;
  }

  compactions(): (at: (index: number) => number) => Record<string, unknown> {
    const offset = this.system === undefined ? 0 : 1;
    return (at) =>
      this.replacements.length === 0
        ? {}
        : {
            compactions: this.replacements.map((r) => ({
              index: at(r.from + offset),
              ...(r.summary ? { summaryIndex: at(r.from + offset) } : r.cleared ? { cleared: true } : { revert: true }),
              replacementFrom: at(r.from + offset),
              replacementTo: at(r.to + offset),
            })),
          };
  }

  /** The messages, each reply with its usage: the wire's steps in order, else the `_usage` records around it. */
  finish(wire: WireStep[] | undefined): { messages: Message[]; mismatch?: string } {
    const replaced = new Set<number>();
    for (const r of this.replacements) for (let i = r.from; i < r.to; i++) replaced.add(i);
    let step = 0;
    const messages: Message[] = this.system === undefined ? [] : [{ role: 'system', content: this.system }];
    for (const [i, { message, usageBefore, usageAfter }] of this.entries.entries()) {
      if (replaced.has(i)) message.is_compact_summary = true;
      else if (message.role === 'assistant') {
        if (wire) {
          const s = wire[step++];
          if (s) Object.assign(message, { usage: s.usage }, s.timestamp ? { timestamp: s.timestamp } : {});
        } else if (usageBefore !== undefined && usageAfter !== undefined && usageAfter >= usageBefore) {
          message.usage = { input_tokens: usageBefore, output_tokens: usageAfter - usageBefore };
        }
      }
      messages.push(message);
    }
    const mismatch = wire && step !== wire.length ? `the wire log records ${wire.length} steps for ${step} replies of the context files` : undefined;
    return { messages, ...(mismatch ? { mismatch } : {}) };
  }
}

function textOf(m: Message): string {
  if (typeof m.content === 'string') return m.content;
  return Array.isArray(m.content) ? m.content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('') : '';
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** A kosong `Message` as a canonical message, or why it is not one. */
function toMessage(value: Record<string, unknown>): Message | string {
  const role = value.role as string;
  if (!ROLES.has(role)) return `unknown role "${role}"`;
  const parts: ContentPart[] = [];
  const reasoning: string[] = [];
  let encrypted = 0;
  const content = value.content;
  if (typeof content === 'string') parts.push({ type: 'text', text: content });
  else if (Array.isArray(content)) {
    for (const p of content) {
      if (!isObject(p)) continue;
      if (p.type === 'text' && typeof p.text === 'string') parts.push({ type: 'text', text: p.text });
      else if (p.type === 'think' && typeof p.think === 'string') {
        if (p.think !== '') reasoning.push(p.think);
        else if (typeof p.encrypted === 'string') encrypted++;
      } else if (p.type === 'image_url' && isObject(p.image_url) && typeof p.image_url.url === 'string')
        parts.push({ type: 'image_url', image_url: { url: p.image_url.url } });
      else parts.push({ type: 'text', text: JSON.stringify(p) });
    }
  } else if (content !== undefined && content !== null) return 'content is neither a string nor a list of parts';
  const text = (): string | ContentPart[] => (parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts);
  if (role === 'assistant') {
    const texts = parts.flatMap((p) => (p.type === 'text' ? [p] : []));
    const message: Message = { role: 'assistant', content: texts.length === 0 ? null : texts.length === 1 ? texts[0].text : texts };
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
    if (encrypted > 0) message.redacted_thinking_blocks = encrypted;
    const calls = Array.isArray(value.tool_calls) ? value.tool_calls.map(toolCall) : [];
    if (calls.some((c) => c === undefined)) return 'tool_calls: expected {id, function: {name, arguments}}';
    if (calls.length > 0) message.tool_calls = calls as ToolCall[];
    return message;
  }
  if (role === 'tool') {
    if (typeof value.tool_call_id !== 'string') return 'a tool message needs a tool_call_id';
    return { role: 'tool', tool_call_id: value.tool_call_id, content: text() };
  }
  return { role, content: text() } as Message;
}

function toolCall(c: unknown): ToolCall | undefined {
  if (!isObject(c) || typeof c.id !== 'string' || !isObject(c.function) || typeof c.function.name !== 'string') return undefined;
  const args = typeof c.function.arguments === 'string' ? c.function.arguments : '{}';
  return { id: c.id, type: 'function', function: { name: c.function.name, arguments: args } };
}
