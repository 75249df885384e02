import type { ContentPart } from '../model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { baseName, errorItem, finishTranscript, isObject, skippedItem } from './_items.js';
import { lineItem, readJsonl } from './_jsonl.js';
import type { Accepted } from './_records.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one transcript per file. Built from Codex's
 * source (codex-rs/protocol `RolloutItem`, `ResponseItem`, `CompactedItem`; codex-rs/core `rollout.rs` of 2025); no
 * real rollout was at hand. Two layouts: lines `{timestamp, type, payload}`, and before them (2025) a bare session meta
 * line followed by bare response items and `{"record_type":"state"}` lines (skipped).
 * - `session_meta`: id, cwd, cli_version, originator, git... go to metadata; its instructions become the system message.
 * - `turn_context`: the model (metadata.models) and cwd; `token_count` events give the latest assistant message its
 *   `usage` (Codex's `last_token_usage`, OpenAI field names). Both are part of the transcript.
 * - `response_item`: `message` -> a message of its role (`input_text`/`output_text` -> text, `input_image` -> image);
 *   `reasoning` -> `reasoning_content` of the next assistant message (summary and reasoning text; encrypted-only
 *   reasoning is counted in metadata.encryptedReasoning); `function_call`, `custom_tool_call`, `local_shell_call` ->
 *   tool calls (calls of one response share one assistant message; a call after a tool output starts a new one);
 *   `function_call_output`, `custom_tool_call_output` -> `tool` messages (`success: false` -> `is_error`); a
 *   `web_search_call` -> a `web_search` call with an empty result marked `unrecorded`; encrypted `compaction` items ->
 *   metadata.compactions; `ghost_snapshot` and unknown items are skipped as `record:response_item/<type>`.
 * - `compacted` (Codex's own compaction): a summary in `message` becomes a user message marked `is_compact_summary`,
 *   listed in metadata.compactions; with no message, `replacement_history` (the kept messages and an encrypted summary)
 *   goes into the transcript marked `is_compact_summary`, listed with its range and `encryptedSummary`.
 * - Other `event_msg` lines repeat response items for the UI: skipped as `record:event_msg/<type>`.
 */
export async function* readCodex(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new RolloutBuilder();
  let first: SourcePosition | undefined;
  let units = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind !== 'value') {
      yield lineItem(entry);
      continue;
    }
    const outcome = builder.accept(entry.value);
    if (outcome.kind === 'error') yield errorItem(entry.at, 'E_SCHEMA', outcome.message);
    else if (outcome.kind === 'skipped') yield skippedItem(entry.at, outcome.reason);
    else {
      first ??= entry.at;
      units++;
    }
  }
  if (!first) return;
  const messages = builder.finish();
  const metadata = { source: { format: 'codex', file }, ...builder.metadata };
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(file);
  yield finishTranscript({ id, messages, metadata, indexedMetadata: (at) => builder.compactionMetadata(at) }, first, units);
}

interface OpenTurn {
  message: AssistantMessage;
  /** A tool output came after this message: a later call belongs to a new model response. */
  answered: boolean;
}

class RolloutBuilder {
  readonly metadata: Record<string, unknown> = {};
  private readonly messages: Message[] = [];
  private readonly models: string[] = [];
  private readonly compactions: Record<string, unknown>[] = [];
  private system: Message | undefined;
  private open: OpenTurn | undefined;
  private lastAssistant: AssistantMessage | undefined;
  private reasoning: string[] = [];
  private encryptedReasoning = 0;
  private webSearches = 0;

  accept(line: unknown): Accepted {
    if (isObject(line) && !('payload' in line)) {
      const legacy = this.legacyLine(line);
      if (legacy) return legacy;
    }
    if (!isObject(line) || typeof line.type !== 'string') return { kind: 'error', message: 'type: a rollout line must be an object with a string "type"' };
    const payload = line.payload;
    if (!isObject(payload)) return { kind: 'error', message: 'payload: expected an object' };
    switch (line.type) {
      case 'session_meta':
        return this.sessionMeta(payload);
      case 'turn_context':
        if (typeof payload.model === 'string' && !this.models.includes(payload.model)) this.models.push(payload.model);
        if (typeof payload.cwd === 'string') this.metadata.cwd ??= payload.cwd;
        return { kind: 'kept' };
      case 'response_item':
        return this.responseItem(payload);
      case 'compacted':
        return this.compacted(payload);
      case 'event_msg':
        if (payload.type === 'token_count' && this.lastAssistant && isObject(payload.info) && isObject(payload.info.last_token_usage)) {
          this.lastAssistant.usage = payload.info.last_token_usage;
          return { kind: 'kept' };
        }
        return { kind: 'skipped', reason: `record:event_msg/${typeof payload.type === 'string' ? payload.type : 'unknown'}` };
      default:
        return { kind: 'skipped', reason: `record:${line.type}` };
    }
  }

  /**
   * A line of the 2025 layout, which has no `{type, payload}` wrapper (codex-rs/core/src/rollout.rs of that time): the
   * session meta `{id, timestamp, instructions?, git?}` first, then bare response items and `{"record_type":"state"}`
   * snapshots. Undefined for a line of the wrapped layout.
   */
  private legacyLine(line: Record<string, unknown>): Accepted | undefined {
    if (typeof line.record_type === 'string' && line.record_type !== 'response') {
      if (line.record_type === 'session_meta' || line.record_type === 'prev_session_meta') return this.sessionMeta(line);
      return { kind: 'skipped', reason: `record:${line.record_type}` };
    }
    if (typeof line.type === 'string') return CODEX_LINE_TYPES.has(line.type) ? undefined : this.responseItem(line);
    if (isLegacySessionMeta(line)) {
      if (typeof line.model === 'string' && !this.models.includes(line.model)) this.models.push(line.model);
      return this.sessionMeta(line);
    }
    return undefined;
  }

  private sessionMeta(p: Record<string, unknown>): Accepted {
    const m = this.metadata;
    if (typeof p.id === 'string') m.sessionId ??= p.id;
    for (const [from, to] of [
      ['cwd', 'cwd'],
      ['cli_version', 'cliVersion'],
      ['originator', 'originator'],
      ['model_provider', 'modelProvider'],
      ['forked_from_id', 'forkedFromId'],
    ] as const) {
      if (p[from] !== undefined && p[from] !== null) m[to] ??= p[from];
    }
    if (p.source !== undefined) m.sessionSource ??= p.source;
    if (isObject(p.git)) m.git ??= p.git;
    const instructions =
      typeof p.instructions === 'string'
        ? p.instructions
        : isObject(p.base_instructions) && typeof p.base_instructions.text === 'string'
          ? p.base_instructions.text
          : undefined;
    if (instructions !== undefined && instructions !== '' && !this.system) this.system = { role: 'system', content: instructions };
    return { kind: 'kept' };
  }

  private responseItem(p: Record<string, unknown>): Accepted {
    switch (p.type) {
      case 'message':
        return this.message(p);
      case 'reasoning':
        return this.addReasoning(p);
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
        return this.call(p);
      case 'function_call_output':
      case 'custom_tool_call_output':
        return this.output(p);
      case 'web_search_call':
        return this.webSearch(p);
      case 'compaction':
      case 'compaction_summary':
        this.closeTurn();
        this.compactions.push({ index: this.messages.length, encrypted: true });
        return { kind: 'kept' };
      default:
        return { kind: 'skipped', reason: `record:response_item/${typeof p.type === 'string' ? p.type : 'unknown'}` };
    }
  }

  private message(p: Record<string, unknown>): Accepted {
    if (typeof p.role !== 'string' || !Array.isArray(p.content))
      return { kind: 'error', message: 'payload: a message needs a string role and a content array' };
    const parts: ContentPart[] = [];
    for (const item of p.content) {
      if (isObject(item) && (item.type === 'input_text' || item.type === 'output_text') && typeof item.text === 'string')
        parts.push({ type: 'text', text: item.text });
      else if (isObject(item) && item.type === 'input_image' && typeof item.image_url === 'string')
        parts.push({ type: 'image_url', image_url: { url: item.image_url } });
      else return { kind: 'error', message: `payload.content: unsupported content item ${JSON.stringify(item).slice(0, 80)}` };
    }
    const single = parts.length === 1 && parts[0].type === 'text' ? parts[0].text : undefined;
    if (p.role === 'assistant') {
      const text = single ?? (parts.length === 0 ? null : (parts.filter((x) => x.type === 'text') as { type: 'text'; text: string }[]));
      if (this.open && !this.open.answered && this.open.message.content == null && !this.open.message.tool_calls) this.open.message.content = text;
      else this.startTurn(text);
      return { kind: 'kept' };
    }
    this.closeTurn();
    this.messages.push({ role: p.role, content: single ?? parts } as Message);
    return { kind: 'kept' };
  }

  private addReasoning(p: Record<string, unknown>): Accepted {
    const texts: string[] = [];
    for (const list of [p.summary, p.content]) {
      if (!Array.isArray(list)) continue;
      for (const item of list) if (isObject(item) && typeof item.text === 'string' && item.text !== '') texts.push(item.text);
    }
    if (texts.length === 0) this.encryptedReasoning++;
    if (this.open && (this.open.message.content != null || this.open.message.tool_calls || this.open.answered)) this.closeTurn();
    if (this.open) this.appendReasoning(this.open.message, texts);
    else this.reasoning.push(...texts);
    return { kind: 'kept' };
  }

  private call(p: Record<string, unknown>): Accepted {
    // A local shell call made through the Chat Completions API has its `id` and no `call_id`.
    if (p.type === 'local_shell_call' && (typeof p.call_id !== 'string' || p.call_id === '') && typeof p.id === 'string' && p.id !== '')
      p = { ...p, call_id: p.id };
    if (typeof p.call_id !== 'string' || p.call_id === '') return { kind: 'error', message: 'payload.call_id: expected a non-empty string' };
    let name: string;
    let args: string;
    if (p.type === 'local_shell_call') {
      name = 'local_shell';
      args = JSON.stringify(p.action ?? {});
    } else {
      if (typeof p.name !== 'string') return { kind: 'error', message: 'payload.name: expected a string' };
      name = p.name;
      const raw = p.type === 'custom_tool_call' ? p.input : p.arguments;
      if (typeof raw !== 'string') return { kind: 'error', message: `payload.${p.type === 'custom_tool_call' ? 'input' : 'arguments'}: expected a string` };
      args = raw;
    }
    const call: ToolCall = { id: p.call_id, type: 'function', function: { name, arguments: args } };
    if (!this.open || this.open.answered) this.startTurn(null);
    const turn = this.open as OpenTurn;
    turn.message.tool_calls = [...(turn.message.tool_calls ?? []), call];
    return { kind: 'kept' };
  }

  /**
   * A hosted web search: the Responses API ran it and put its results in the model's context without recording them,
   * and the item has no call id and no output item. It becomes a `web_search` call (arguments: its `action`) answered
   * by an empty result marked `unrecorded`, so the call is neither an orphan nor a repair.
   */
  private webSearch(p: Record<string, unknown>): Accepted {
    const id = typeof p.id === 'string' && p.id !== '' ? p.id : `web_search_${++this.webSearches}`;
    const accepted = this.call({ type: 'function_call', call_id: id, name: 'web_search', arguments: JSON.stringify(p.action ?? {}) });
    if (accepted.kind !== 'kept') return accepted;
    const result: ToolMessage = { role: 'tool', tool_call_id: id, name: 'web_search', content: '' };
    (result as Record<string, unknown>).unrecorded = true;
    if (typeof p.status === 'string' && p.status !== 'completed') result.is_error = p.status === 'failed';
    if (this.open) this.open.answered = true;
    this.messages.push(result);
    return accepted;
  }

  private output(p: Record<string, unknown>): Accepted {
    if (typeof p.call_id !== 'string' || p.call_id === '') return { kind: 'error', message: 'payload.call_id: expected a non-empty string' };
    const message: ToolMessage = { role: 'tool', tool_call_id: p.call_id, content: '' };
    const out = p.output;
    if (typeof out === 'string') message.content = out;
    else if (Array.isArray(out))
      message.content = out.map((item): ContentPart =>
        isObject(item) && item.type === 'input_image' && typeof item.image_url === 'string'
          ? { type: 'image_url', image_url: { url: item.image_url } }
          : { type: 'text', text: isObject(item) && typeof item.text === 'string' ? item.text : JSON.stringify(item) },
      );
    else if (isObject(out)) {
      message.content = typeof out.content === 'string' ? out.content : JSON.stringify(out);
      if (out.success === false) message.is_error = true;
    } else return { kind: 'error', message: 'payload.output: expected a string, content items or {content, success}' };
    if (this.open) this.open.answered = true;
    this.messages.push(message);
    return { kind: 'kept' };
  }

  private compacted(p: Record<string, unknown>): Accepted {
    if (p.message === undefined || p.message === null || p.message === '') {
      if (Array.isArray(p.replacement_history)) return this.replacementHistory(p.replacement_history);
    }
    if (typeof p.message !== 'string') return { kind: 'error', message: 'payload.message: expected a string' };
    this.closeTurn();
    const entry: Record<string, unknown> = { summaryIndex: this.messages.length };
    if (Array.isArray(p.replacement_history)) entry.replacementHistoryItems = p.replacement_history.length;
    this.compactions.push(entry);
    this.messages.push({ role: 'user', content: p.message, is_compact_summary: true });
    return { kind: 'kept' };
  }

  /**
   * Codex's remote compaction: no summary text; `replacement_history` is the whole history the model has from here on,
   * the user and assistant messages it kept plus a `compaction` item whose summary is encrypted. Its messages go into
   * the transcript marked `is_compact_summary` (what the model saw again, not new turns), and the point in
   * metadata.compactions names them (`replacementFrom`, `replacementTo`) and says the summary is opaque. Other items of
   * the replacement history are counted, not converted.
   */
  private replacementHistory(items: unknown[]): Accepted {
    this.closeTurn();
    const from = this.messages.length;
    let encrypted = 0;
    let other = 0;
    for (const item of items) {
      if (!isObject(item)) return { kind: 'error', message: 'payload.replacement_history: expected response items' };
      if (item.type === 'compaction' || item.type === 'compaction_summary') encrypted++;
      else if (item.type === 'message') {
        const converted = messageOf(item);
        if (!converted.ok) return { kind: 'error', message: `payload.replacement_history: ${converted.message}` };
        this.messages.push({ ...converted.message, is_compact_summary: true } as Message);
      } else other++;
    }
    const entry: Record<string, unknown> = { index: from, replacementFrom: from, replacementTo: this.messages.length, replacementHistoryItems: items.length };
    if (encrypted > 0) entry.encryptedSummary = true;
    if (other > 0) entry.replacementItemsNotConverted = other;
    this.compactions.push(entry);
    return { kind: 'kept' };
  }

  private startTurn(content: AssistantMessage['content']): void {
    this.closeTurn();
    const message: AssistantMessage = { role: 'assistant', content };
    this.appendReasoning(message, this.reasoning);
    this.reasoning = [];
    this.messages.push(message);
    this.open = { message, answered: false };
    this.lastAssistant = message;
  }

  private closeTurn(): void {
    this.open = undefined;
  }

  private appendReasoning(message: AssistantMessage, texts: string[]): void {
    if (texts.length === 0) return;
    message.reasoning_content = [message.reasoning_content, ...texts].filter((t) => t !== undefined && t !== '').join('\n\n');
  }

  finish(): Message[] {
    if (this.reasoning.length > 0) this.startTurn(null); // reasoning with no reply after it (an interrupted turn)
    if (this.models.length > 0) this.metadata.models = this.models;
    if (this.encryptedReasoning > 0) this.metadata.encryptedReasoning = this.encryptedReasoning;
    return this.system ? [this.system, ...this.messages] : this.messages;
  }

  /** metadata.compactions with indices in the final transcript (after the system message and the pairing repair). */
  compactionMetadata(at: (index: number) => number): Record<string, unknown> {
    if (this.compactions.length === 0) return {};
    const shift = this.system ? 1 : 0; // indices were taken before the system message was put first
    const compactions = this.compactions.map((c) => {
      const out = { ...c };
      if (typeof out.index === 'number') out.index = at(out.index + shift);
      if (typeof out.summaryIndex === 'number') out.summaryIndex = at(out.summaryIndex + shift);
      // The replacement messages are never tool messages, so the repair keeps them in order: the range maps by its ends.
      if (typeof out.replacementFrom === 'number') out.replacementFrom = at(out.replacementFrom + shift);
      if (typeof out.replacementTo === 'number') out.replacementTo = at(out.replacementTo + shift);
      return out;
    });
    return { compactions };
  }
}

/** The line types of the wrapped layout (`{timestamp, type, payload}`). */
const CODEX_LINE_TYPES: ReadonlySet<string> = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const LEGACY_META_KEYS: ReadonlySet<string> = new Set(['id', 'timestamp', 'instructions', 'git', 'cwd', 'originator', 'cli_version', 'model']);

/** The first line of a 2025 rollout: `{id, timestamp}` with optional `instructions` and `git`, and nothing else. */
export function isLegacySessionMeta(value: Record<string, unknown>): boolean {
  return typeof value.id === 'string' && typeof value.timestamp === 'string' && Object.keys(value).every((k) => LEGACY_META_KEYS.has(k));
}

type Converted = { ok: true; message: Message } | { ok: false; message: string };

/** A `message` response item as a canonical message (text and image parts; one text part becomes a string). */
function messageOf(p: Record<string, unknown>): Converted {
  if (typeof p.role !== 'string' || !Array.isArray(p.content)) return { ok: false, message: 'a message needs a string role and a content array' };
  const parts: ContentPart[] = [];
  for (const item of p.content) {
    if (isObject(item) && (item.type === 'input_text' || item.type === 'output_text') && typeof item.text === 'string')
      parts.push({ type: 'text', text: item.text });
    else if (isObject(item) && item.type === 'input_image' && typeof item.image_url === 'string')
      parts.push({ type: 'image_url', image_url: { url: item.image_url } });
    else return { ok: false, message: `unsupported content item ${JSON.stringify(item).slice(0, 80)}` };
  }
  const single = parts.length === 1 && parts[0].type === 'text' ? parts[0].text : undefined;
  if (p.role === 'assistant') {
    const content = single ?? (parts.length === 0 ? null : (parts.filter((x) => x.type === 'text') as { type: 'text'; text: string }[]));
    return { ok: true, message: { role: 'assistant', content } };
  }
  return { ok: true, message: { role: p.role, content: single ?? parts } as Message };
}
