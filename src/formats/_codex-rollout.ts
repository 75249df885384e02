import type { ContentPart } from '../model/content.js';
import { type AssistantMessage, type Message, type ToolCall, type ToolMessage, isAssistant } from '../model/message.js';
import { CODEX_LINE_TYPES, appendReasoning, isLegacySessionMeta, joinText, messageOf } from './_codex-items.js';
import { isObject } from './_items.js';
import type { Accepted } from './_records.js';
import { TokenCounts } from './_codex-usage.js';

/**
 * The transcript of one Codex rollout, line by line (see codex.ts for the mapping). One assistant message is one request
 * to the model: every output item (reasoning, messages, calls, web searches) from the previous request's end up to the
 * `token_count` event that prices it, whatever tool outputs Codex recorded between them. A request also ends at a user
 * message, a `compacted` record or a `turn_aborted` event, and, in a rollout without `token_count` events (the 2025
 * layout, older CLIs), at a tool output. An aborted request that no event priced is marked `unpriced_request`: its items were sent again later,
 * but the record has no usage for it.
 */
export class RolloutBuilder {
  readonly metadata: Record<string, unknown> = {};
  private readonly messages: Message[] = [];
  private readonly models: string[] = [];
  private readonly compactions: Record<string, unknown>[] = [];
  private readonly counts = new TokenCounts();
  private system: Message | undefined;
  /** The request whose output items are being read, until its `token_count` event or an input ends it. */
  private open: AssistantMessage | undefined;
  /** Requests ended by an input before an event priced them: the next request event prices the last of them. */
  private unpriced: AssistantMessage[] = [];
  private reasoning: string[] = [];
  private encryptedReasoning = 0;
  private webSearches = 0;
  /** A `token_count` event with usage was read: requests end at their events, not at tool outputs. */
  private sawUsage = false;
  /** The timestamp of the line being read. */
  private at: string | undefined;
  /** `turn_context.truncation_policy`: how Codex trims the tool outputs it records in the model's history. */
  private truncation: Record<string, unknown> | undefined;

  accept(line: unknown): Accepted {
    if (isObject(line) && !('payload' in line)) {
      const legacy = this.legacyLine(line);
      if (legacy) return legacy;
    }
    if (!isObject(line) || typeof line.type !== 'string') return { kind: 'error', message: 'type: a rollout line must be an object with a string "type"' };
    const payload = line.payload;
    if (!isObject(payload)) return { kind: 'error', message: 'payload: expected an object' };
    this.at = typeof line.timestamp === 'string' ? line.timestamp : undefined;
    switch (line.type) {
      case 'session_meta':
        return this.sessionMeta(payload);
      case 'turn_context':
        if (typeof payload.model === 'string' && !this.models.includes(payload.model)) this.models.push(payload.model);
        if (typeof payload.cwd === 'string') this.metadata.cwd ??= payload.cwd;
        if (isObject(payload.truncation_policy)) this.truncation = payload.truncation_policy;
        return { kind: 'kept' };
      case 'response_item':
        return this.responseItem(payload);
      case 'compacted':
        return this.compacted(payload);
      case 'event_msg':
        return this.event(payload);
      default:
        return { kind: 'skipped', reason: `record:${line.type}` };
    }
  }

  private event(payload: Record<string, unknown>): Accepted {
    if (payload.type === 'token_count') {
      if (isObject(payload.info)) this.sawUsage = true;
      const usage = this.counts.request(payload);
      if (usage) this.price(usage);
      return { kind: 'kept' };
    }
    if (payload.type === 'turn_aborted') {
      this.endRequest();
      if (this.sawUsage) for (const m of this.unpriced) m.unpriced_request = true;
      this.unpriced = [];
      return { kind: 'kept' };
    }
    return { kind: 'skipped', reason: `record:event_msg/${typeof payload.type === 'string' ? payload.type : 'unknown'}` };
  }

  /** A request's usage: on the request being read, else on the last one an input ended, else on a request with no item. */
  private price(usage: Record<string, unknown>): void {
    this.endRequest();
    let request = this.unpriced.pop();
    if (!request) {
      // A request whose output the rollout does not hold (Codex's own summarization request): priced where it was made.
      this.startRequest(null);
      request = this.open as AssistantMessage;
      this.open = undefined;
    }
    request.usage = usage;
    for (const m of this.unpriced) m.unpriced_request = true;
    this.unpriced = [];
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
    if (typeof line.type === 'string') {
      if (CODEX_LINE_TYPES.has(line.type)) return undefined;
      this.at = undefined;
      return this.responseItem(line);
    }
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
    if (instructions !== undefined && instructions !== '' && !this.system) {
      this.system = { role: 'system', content: instructions };
      if (this.at !== undefined) this.system.timestamp = this.at;
    }
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
        this.endRequest();
        this.compactions.push({ index: this.messages.length, encrypted: true });
        return { kind: 'kept' };
      default:
        return { kind: 'skipped', reason: `record:response_item/${typeof p.type === 'string' ? p.type : 'unknown'}` };
    }
  }

  private message(p: Record<string, unknown>): Accepted {
    const converted = messageOf(p);
    if (!converted.ok) return { kind: 'error', message: `payload${converted.message.startsWith('unsupported') ? '.content' : ''}: ${converted.message}` };
    const message = converted.message;
    if (isAssistant(message)) {
      // A commentary message and the answer or calls after it are one response: one request.
      if (this.open) this.open.content = joinText(this.open.content, message.content);
      else this.startRequest(message.content);
      return { kind: 'kept' };
    }
    this.endRequest();
    this.push(message);
    return { kind: 'kept' };
  }

  private addReasoning(p: Record<string, unknown>): Accepted {
    const texts: string[] = [];
    for (const list of [p.summary, p.content]) {
      if (!Array.isArray(list)) continue;
      for (const item of list) if (isObject(item) && typeof item.text === 'string' && item.text !== '') texts.push(item.text);
    }
    if (texts.length === 0) this.encryptedReasoning++;
    if (this.open) appendReasoning(this.open, texts);
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
    if (!this.open) this.startRequest(null);
    const request = this.open as AssistantMessage;
    request.tool_calls = [...(request.tool_calls ?? []), call];
    return { kind: 'kept' };
  }

  /**
   * A hosted web search: the Responses API ran it within the response and put its results in the model's context
   * without recording them; the item has no call id and no output item. It becomes a `web_search` call (arguments: its
   * `action`) of the response's request, answered by an empty result marked `unrecorded`, so the call is neither an
   * orphan nor a repair. It does not end the request: the response goes on after it.
   */
  private webSearch(p: Record<string, unknown>): Accepted {
    const id = typeof p.id === 'string' && p.id !== '' ? p.id : `web_search_${++this.webSearches}`;
    const accepted = this.call({ type: 'function_call', call_id: id, name: 'web_search', arguments: JSON.stringify(p.action ?? {}) });
    if (accepted.kind !== 'kept') return accepted;
    const result: ToolMessage = { role: 'tool', tool_call_id: id, name: 'web_search', content: '' };
    (result as Record<string, unknown>).unrecorded = true;
    if (typeof p.status === 'string' && p.status !== 'completed') result.is_error = p.status === 'failed';
    this.push(result);
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
    if (this.truncation) message.truncation_policy = this.truncation;
    // Without token_count events (the 2025 layout, older CLIs), a call after a tool output belongs to a new response.
    if (!this.sawUsage) this.endRequest();
    this.push(message);
    return { kind: 'kept' };
  }

  private compacted(p: Record<string, unknown>): Accepted {
    if (p.message === undefined || p.message === null || p.message === '') {
      if (Array.isArray(p.replacement_history)) return this.replacementHistory(p.replacement_history);
    }
    if (typeof p.message !== 'string') return { kind: 'error', message: 'payload.message: expected a string' };
    this.endRequest();
    const entry: Record<string, unknown> = { summaryIndex: this.messages.length };
    if (Array.isArray(p.replacement_history)) entry.replacementHistoryItems = p.replacement_history.length;
    this.compactions.push(entry);
    this.push({ role: 'user', content: p.message, is_compact_summary: true });
    return { kind: 'kept' };
  }

  /**
   * Codex's remote compaction: no summary text; `replacement_history` is the whole history the model has from here on,
   * the developer, user and assistant messages it kept plus a `compaction` item whose summary is encrypted. Its messages
   * go into the transcript marked `is_compact_summary` (what the model saw again, not new turns), and the point in
   * metadata.compactions names them (`replacementFrom`, `replacementTo`) and says the summary is opaque. Other items of
   * the replacement history are counted, not converted.
   */
  private replacementHistory(items: unknown[]): Accepted {
    this.endRequest();
    const from = this.messages.length;
    let encrypted = 0;
    let other = 0;
    for (const item of items) {
      if (!isObject(item)) return { kind: 'error', message: 'payload.replacement_history: expected response items' };
      if (item.type === 'compaction' || item.type === 'compaction_summary') encrypted++;
      else if (item.type === 'message') {
        const converted = messageOf(item);
        if (!converted.ok) return { kind: 'error', message: `payload.replacement_history: ${converted.message}` };
        this.push({ ...converted.message, is_compact_summary: true } as Message);
      } else other++;
    }
    const entry: Record<string, unknown> = { index: from, replacementFrom: from, replacementTo: this.messages.length, replacementHistoryItems: items.length };
    if (encrypted > 0) entry.encryptedSummary = true;
    if (other > 0) entry.replacementItemsNotConverted = other;
    this.compactions.push(entry);
    return { kind: 'kept' };
  }

  private push(message: Message): void {
    if (this.at !== undefined) message.timestamp = this.at;
    this.messages.push(message);
  }

  private startRequest(content: AssistantMessage['content']): void {
    this.endRequest();
    const message: AssistantMessage = { role: 'assistant', content };
    appendReasoning(message, this.reasoning);
    this.reasoning = [];
    this.push(message);
    this.open = message;
  }

  /** The request being read ends without its event: the next request event prices it, unless an abort comes first. */
  private endRequest(): void {
    if (this.open) this.unpriced.push(this.open);
    this.open = undefined;
  }

  finish(): Message[] {
    if (this.reasoning.length > 0) this.startRequest(null); // reasoning with no reply after it (an interrupted turn)
    this.endRequest();
    // With token_count events, a request none priced is one the record does not bill (interrupted, failed).
    if (this.sawUsage) for (const m of this.unpriced) m.unpriced_request = true;
    if (this.models.length > 0) this.metadata.models = this.models;
    // The Responses API leaves a finished turn's reasoning out of later prompts (see model/turn-reasoning.ts).
    this.metadata.reasoningScope = 'turn';
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
