import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { baseName, errorItem, finishTranscript, isObject } from './_items.js';
import { isStorageSession, readStorageMessages } from './_opencode-storage.js';
import { readRecords } from './_records.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * OpenCode session exports (`opencode export <session>`: `{info, messages: [{info, parts}]}`), one transcript per
 * file (one unit), id the session's `info.id`; or a session of OpenCode's JSON storage (`storage/session/<project>/
 * <session>.json`, its messages and parts read from the storage folder beside it, see _opencode-storage.ts), the same
 * list once assembled. Built from OpenCode's source (packages/opencode/src/cli/cmd/export.ts
 * and session/message-v2.ts: `User`, `Assistant`, `Part`); the mapping follows what OpenCode sends the model
 * (message-v2.ts `toModelMessages`).
 * - A user message: `text` parts (not `ignored`) -> text, `file` parts -> image or file parts (text/plain and
 *   directories are already in the text), a `compaction` part -> the question OpenCode asks ("What did we do so
 *   far?"), a `subtask` part -> "The following tool was executed by the user".
 * - An assistant message holds one or more steps (`step-start` ... `step-finish`), each a model call: each becomes an
 *   assistant message (`text` -> content, `reasoning` -> `reasoning_content`, `tool` parts -> tool calls with
 *   `JSON.stringify(state.input)`), followed by the `tool` messages of its calls: `completed` -> `state.output`,
 *   `error` -> `state.error` with `is_error`. A `pending` or `running` call has no result: the pairing repair fills it
 *   and reports it. A step's `step-finish` tokens become its `usage` (`input` excludes the cache, as Anthropic's
 *   `input_tokens` does), else the message's `tokens` go on its last step.
 * - OpenCode's compaction: the user message with a `compaction` part is the boundary and the assistant reply marked
 *   `summary: true` is the summary (marked `is_compact_summary`), listed in metadata.compactions with `trigger`
 *   (`auto` or `manual`). Tool outputs OpenCode pruned (`state.time.compacted`) keep their recorded text; counted in
 *   metadata.prunedToolOutputs.
 * - Other parts (snapshot, patch, agent, retry) are bookkeeping: counted in metadata.skippedParts by type.
 */
export async function* readOpenCode(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const entry of readRecords(file, { ...options, layout: 'json' })) {
    if (entry.kind === 'item') {
      yield entry.item;
      continue;
    }
    const { value, at } = entry.record;
    let info: Record<string, unknown>;
    let list: unknown[];
    if (isObject(value) && isStorageSession(file, value)) {
      const stored = await readStorageMessages(file, value.id as string, options.maxLineBytes);
      if (!stored.ok) {
        yield errorItem(at, stored.error.code, stored.error.message);
        continue;
      }
      [info, list] = [value, stored.value];
    } else if (isObject(value) && isObject(value.info) && Array.isArray(value.messages)) {
      [info, list] = [value.info, value.messages];
    } else {
      yield errorItem(at, 'E_SCHEMA', 'an OpenCode export needs an info object and a messages array');
      continue;
    }
    yield opencodeSession(info, list, at, { format: 'opencode', file });
  }
}

/**
 * One OpenCode session as a transcript item: its info and its `{info, parts}` list, as an export holds them, the JSON
 * storage gives them back, or the database's rows rebuild them (opencode-db.ts). `source` goes to metadata.source.
 */
export function opencodeSession(info: Record<string, unknown>, list: unknown[], at: SourcePosition, source: Record<string, unknown>): InputItem {
  const builder = new ExportBuilder();
  const error = builder.read(list);
  if (error !== undefined) return errorItem(at, 'E_SCHEMA', error);
  const metadata: Record<string, unknown> = { source };
  for (const key of ['projectID', 'directory', 'parentID', 'title', 'version', 'time'] as const) if (info[key] !== undefined) metadata[key] = info[key];
  Object.assign(metadata, builder.metadata());
  const id = typeof info.id === 'string' ? info.id : baseName(at.file);
  const marks = builder.compactions;
  const indexedMetadata = (to: (index: number) => number) =>
    marks.length === 0 ? {} : { compactions: marks.map((c) => ({ boundaryIndex: to(c.boundaryIndex), summaryIndex: to(c.summaryIndex), trigger: c.trigger })) };
  return finishTranscript({ id, messages: builder.messages, metadata, indexedMetadata }, at, 1);
}

class ExportBuilder {
  readonly messages: Message[] = [];
  readonly compactions: { boundaryIndex: number; summaryIndex: number; trigger: string }[] = [];
  private readonly models: string[] = [];
  private readonly skippedParts: Record<string, number> = {};
  private pruned = 0;
  private pendingBoundary: { index: number; trigger: string } | undefined;

  read(list: unknown[]): string | undefined {
    for (const [i, entry] of list.entries()) {
      if (!isObject(entry) || !isObject(entry.info) || !Array.isArray(entry.parts)) return `messages[${i}]: expected {info, parts}`;
      const parts = entry.parts.filter(isObject);
      if (entry.info.role === 'user') this.user(parts);
      else if (entry.info.role === 'assistant') this.assistant(entry.info, parts);
      else return `messages[${i}].info.role: expected "user" or "assistant"`;
    }
    return undefined;
  }

  metadata(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.models.length > 0) out.models = this.models;
    if (this.pruned > 0) out.prunedToolOutputs = this.pruned;
    if (Object.keys(this.skippedParts).length > 0) out.skippedParts = this.skippedParts;
    return out;
  }

  private skip(type: unknown): void {
    const key = typeof type === 'string' ? type : 'unknown';
    this.skippedParts[key] = (this.skippedParts[key] ?? 0) + 1;
  }

  private user(parts: Record<string, unknown>[]): void {
    const content: ContentPart[] = [];
    let compaction: string | undefined;
    for (const p of parts) {
      if (p.type === 'text' && typeof p.text === 'string') {
        if (p.ignored !== true) content.push({ type: 'text', text: p.text });
      } else if (p.type === 'file' && typeof p.url === 'string' && typeof p.mime === 'string') {
        if (p.mime === 'text/plain' || p.mime === 'application/x-directory') continue;
        content.push(
          p.mime.startsWith('image/')
            ? { type: 'image_url', image_url: { url: p.url } }
            : { type: 'file', file: { file_data: p.url, ...(typeof p.filename === 'string' ? { filename: p.filename } : {}) } },
        );
      } else if (p.type === 'compaction') {
        compaction = p.auto === true ? 'auto' : 'manual';
        content.push({ type: 'text', text: 'What did we do so far?' });
      } else if (p.type === 'subtask') content.push({ type: 'text', text: 'The following tool was executed by the user' });
      else this.skip(p.type);
    }
    if (compaction !== undefined) this.pendingBoundary = { index: this.messages.length, trigger: compaction };
    this.messages.push({ role: 'user', content: content.length === 1 && content[0].type === 'text' ? content[0].text : content });
  }

  private assistant(info: Record<string, unknown>, parts: Record<string, unknown>[]): void {
    const model = typeof info.modelID === 'string' ? info.modelID : undefined;
    if (model !== undefined && !this.models.includes(model)) this.models.push(model);
    const first = this.messages.length;
    let step: { texts: string[]; reasoning: string[]; calls: ToolCall[]; results: ToolMessage[]; usage?: Record<string, number> } | undefined;
    const steps: NonNullable<typeof step>[] = [];
    const open = () => (step ??= { texts: [], reasoning: [], calls: [], results: [] });
    for (const p of parts) {
      if (p.type === 'step-start') {
        if (step) steps.push(step);
        step = undefined;
        open();
      } else if (p.type === 'step-finish') {
        if (isObject(p.tokens) && hasTokens(p.tokens)) open().usage = opencodeUsage(p.tokens);
        if (step) steps.push(step);
        step = undefined;
      } else if (p.type === 'text' && typeof p.text === 'string') open().texts.push(p.text);
      else if (p.type === 'reasoning' && typeof p.text === 'string') {
        if (p.text !== '') open().reasoning.push(p.text);
      } else if (p.type === 'tool' && typeof p.callID === 'string' && isObject(p.state)) this.toolPart(open(), p as unknown as ToolPart);
      else this.skip(p.type);
    }
    if (step) steps.push(step);
    if (steps.length === 0) steps.push({ texts: [], reasoning: [], calls: [], results: [] });
    if (steps.every((s) => s.usage === undefined) && isObject(info.tokens) && hasTokens(info.tokens))
      steps[steps.length - 1].usage = opencodeUsage(info.tokens);
    for (const s of steps) {
      const message: AssistantMessage = {
        role: 'assistant',
        content: s.texts.length === 0 ? null : s.texts.length === 1 ? s.texts[0] : s.texts.map((text) => ({ type: 'text', text })),
      };
      if (s.reasoning.length > 0) message.reasoning_content = s.reasoning.join('\n\n');
      if (s.calls.length > 0) message.tool_calls = s.calls;
      if (model !== undefined) message.model = model;
      if (s.usage) message.usage = s.usage;
      this.messages.push(message, ...s.results);
    }
    if (info.summary === true) {
      this.messages[first].is_compact_summary = true;
      if (this.pendingBoundary)
        this.compactions.push({ boundaryIndex: this.pendingBoundary.index, summaryIndex: first, trigger: this.pendingBoundary.trigger });
      this.pendingBoundary = undefined;
    }
  }

  private toolPart(step: { calls: ToolCall[]; results: ToolMessage[] }, p: ToolPart): void {
    const name = typeof p.tool === 'string' ? p.tool : 'unknown';
    step.calls.push({ id: p.callID, type: 'function', function: { name, arguments: JSON.stringify(p.state.input ?? {}) } });
    const state = p.state;
    if (state.status === 'completed') {
      if (isObject(state.time) && state.time.compacted !== undefined) this.pruned++;
      step.results.push({
        role: 'tool',
        tool_call_id: p.callID,
        name,
        content: typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? null),
      });
    } else if (state.status === 'error') {
      step.results.push({
        role: 'tool',
        tool_call_id: p.callID,
        name,
        content: typeof state.error === 'string' ? state.error : JSON.stringify(state.error ?? null),
        is_error: true,
      });
    }
  }
}

interface ToolPart {
  callID: string;
  tool?: unknown;
  state: Record<string, unknown>;
}

/** An aborted call records all zeros: no usage to report. */
function hasTokens(tokens: Record<string, unknown>): boolean {
  return Object.values(opencodeUsage(tokens)).some((v) => v > 0);
}

/** OpenCode's `{input, output, reasoning, cache: {read, write}}`: input excludes the cache, as Anthropic's does. */
function opencodeUsage(tokens: Record<string, unknown>): Record<string, number> {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  return {
    input_tokens: n(tokens.input),
    cache_creation_input_tokens: n(cache.write),
    cache_read_input_tokens: n(cache.read),
    output_tokens: n(tokens.output),
    reasoning_output_tokens: n(tokens.reasoning),
  };
}
