import type { ContentPart } from '../model/content.js';
import type { Message, ToolCall } from '../model/message.js';
import { isObject } from './_items.js';

/**
 * The model context of one Kimi Code agent, folded from its `wire.jsonl` records as the agent folds them on resume
 * (MoonshotAI/kimi-code `packages/agent-core/src/agent/context/index.ts`, `ContextMemory`), and the log of every
 * message it ever held, in order: the transcript.
 */

/** `PromptOrigin.kind` values whose user messages a compaction keeps (`compaction/handoff.ts` `compactionUserMessageDisposition`). */
const KEPT_ORIGINS = new Set([undefined, 'user']);
const SLASH_ORIGINS = new Set(['skill_activation', 'plugin_command']);

/** One replacement of the context: a compaction (its kept user messages, then its summary), an undo, or a clear. */
interface Replacement {
  from: number;
  to: number;
  kind: 'compaction' | 'undo' | 'clear';
  summary?: number;
  tokensBefore?: number;
}

/** A usage record as the transcript keeps it: kosong `TokenUsage` in the provider's (Anthropic) field names. */
export type CallUsage = Record<string, number>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** kosong `TokenUsage` (`inputOther`, `inputCacheRead`, `inputCacheCreation`, `output`), or undefined when it is not one. */
export function tokenUsage(u: unknown): CallUsage | undefined {
  if (!isObject(u)) return undefined;
  return {
    input_tokens: num(u.inputOther),
    cache_creation_input_tokens: num(u.inputCacheCreation),
    cache_read_input_tokens: num(u.inputCacheRead),
    output_tokens: num(u.output),
  };
}

export class KimiCodeContext {
  /** Every message in the order it entered the context; replacements are copies marked `is_compact_summary`. */
  readonly log: Message[] = [];
  private live: Message[] = [];
  private readonly origins = new WeakMap<Message, Record<string, unknown>>();
  private readonly openSteps = new Map<string, Message>();
  /** Steps that ended and wait for their `usage.record` (or keep their `step.end` usage when none comes). */
  private readonly unbilled: { message: Message; stepUsage?: CallUsage }[] = [];
  readonly replacements: Replacement[] = [];
  /** The agent's own replies that no step record opened (an older wire appending assistant messages whole). */
  messagesAppended = 0;

  /** `context.append_message`: a ContextMessage (`{role, content: [parts], toolCalls, toolCallId?, origin?}`). */
  appendMessage(raw: unknown, time: string | undefined): string | undefined {
    if (!isObject(raw) || typeof raw.role !== 'string') return 'context.append_message: message is not {role, content}';
    const message = toMessage(raw);
    if (typeof message === 'string') return `context.append_message: ${message}`;
    if (time) message.timestamp = time;
    if (isObject(raw.origin)) this.origins.set(message, raw.origin);
    if (message.role === 'assistant') {
      this.messagesAppended++;
      this.unbilled.push({ message });
    }
    this.push(message);
    return undefined;
  }

  /** `context.append_loop_event`: a step opens an assistant message, its parts and tool calls fill it, a result follows. */
  loopEvent(event: unknown, time: string | undefined): string | undefined {
    if (!isObject(event) || typeof event.type !== 'string') return 'context.append_loop_event: event has no type';
    switch (event.type) {
      case 'step.begin': {
        if (typeof event.uuid !== 'string') return 'step.begin: no uuid';
        const message: Message = { role: 'assistant', content: null };
        if (time) message.timestamp = time;
        this.openSteps.set(event.uuid, message);
        this.push(message);
        return undefined;
      }
      case 'content.part': {
        const step = typeof event.stepUuid === 'string' ? this.openSteps.get(event.stepUuid) : undefined;
        if (!step || step.role !== 'assistant') return `content.part: no open step ${String(event.stepUuid)}`;
        const part = event.part;
        if (isObject(part) && part.type === 'think' && typeof part.think === 'string') {
          if (part.think !== '') step.reasoning_content = step.reasoning_content === undefined ? part.think : `${step.reasoning_content}\n\n${part.think}`;
        } else if (isObject(part) && part.type === 'text' && typeof part.text === 'string') {
          step.content = typeof step.content === 'string' ? `${step.content}${part.text}` : part.text;
        } else return 'content.part: neither a text nor a think part';
        return undefined;
      }
      case 'tool.call': {
        const step = typeof event.stepUuid === 'string' ? this.openSteps.get(event.stepUuid) : undefined;
        if (!step || step.role !== 'assistant') return `tool.call: no open step ${String(event.stepUuid)}`;
        if (typeof event.toolCallId !== 'string' || typeof event.name !== 'string') return 'tool.call: needs toolCallId and name';
        const call: ToolCall = { id: event.toolCallId, type: 'function', function: { name: event.name, arguments: JSON.stringify(event.args ?? {}) } };
        step.tool_calls = [...((step.tool_calls as ToolCall[] | undefined) ?? []), call];
        return undefined;
      }
      case 'tool.result': {
        if (typeof event.toolCallId !== 'string' || !isObject(event.result)) return 'tool.result: needs toolCallId and result';
        this.push({ role: 'tool', tool_call_id: event.toolCallId, content: resultText(event.result.output) });
        return undefined;
      }
      case 'step.end': {
        const step = typeof event.uuid === 'string' ? this.openSteps.get(event.uuid) : undefined;
        if (!step) return `step.end: no open step ${String(event.uuid)}`;
        this.openSteps.delete(event.uuid as string);
        const stepUsage = tokenUsage(event.usage);
        this.unbilled.push({ message: step, ...(stepUsage ? { stepUsage } : {}) });
        return undefined;
      }
      default:
        return `context.append_loop_event: unknown event ${event.type}`;
    }
  }

  /** A loop step's `usage.record`: the oldest ended step without usage. False when no step waits for it. */
  bill(usage: CallUsage, model: string | undefined): boolean {
    const next = this.unbilled.shift();
    if (!next) return false;
    next.message.usage = usage;
    if (model) next.message.model = model;
    return true;
  }

  /** Steps that ended without a `usage.record` keep the usage their `step.end` carried. */
  billFromSteps(): number {
    let n = 0;
    for (const { message, stepUsage } of this.unbilled.splice(0)) {
      if (stepUsage && Object.values(stepUsage).some((v) => v > 0)) {
        message.usage = stepUsage;
        n++;
      }
    }
    return n;
  }

  /**
   * `context.apply_compaction`: the context becomes the user messages it kept (`keptUserMessageCount`, the oldest
   * `keptHeadUserMessageCount` of them and the newest rest), then the summary as a user message (`contextSummary`, else
   * `summary`). A record without `keptUserMessageCount` (older builds) kept the summary, then the history from
   * `compactedCount` (`count`) on.
   */
  compact(r: Record<string, unknown>): string | undefined {
    // The oldest records hold the summary as a whole message and the compacted count as `count`
    // (agent-core-v2 `contextMemory/contextOps.ts` reads all three shapes).
    const summaryText = typeof r.contextSummary === 'string' ? r.contextSummary : typeof r.summary === 'string' ? r.summary : undefined;
    const summaryMessage = summaryText === undefined && isObject(r.summary) ? toMessage(r.summary) : undefined;
    if (summaryText === undefined && (summaryMessage === undefined || typeof summaryMessage === 'string')) return 'context.apply_compaction: no summary';
    const summary: Message = summaryText !== undefined ? { role: 'user', content: summaryText } : (summaryMessage as Message);
    this.origins.set(summary, { kind: 'compaction_summary' });
    let kept: Message[];
    if (typeof r.keptUserMessageCount === 'number') {
      const users = this.live.filter((m) => this.isRealUserInput(m));
      const total = Math.min(r.keptUserMessageCount, users.length);
      const head = typeof r.keptHeadUserMessageCount === 'number' ? Math.min(r.keptHeadUserMessageCount, total) : 0;
      kept = [...users.slice(0, head), ...users.slice(users.length - (total - head)), summary];
    } else {
      const count = typeof r.compactedCount === 'number' ? r.compactedCount : r.count;
      const from = typeof count === 'number' ? count : this.live.length;
      kept = [summary, ...this.live.slice(from)];
    }
    this.replace(kept, 'compaction', kept.indexOf(summary), typeof r.tokensBefore === 'number' ? r.tokensBefore : undefined);
    return undefined;
  }

  /** `context.clear`: the context starts over empty. */
  clear(): void {
    this.replace([], 'clear');
  }

  /**
   * `context.undo {count}`: the newest messages go, back to the `count`-th real user input (injections stay, a
   * compaction summary stops it), as `ContextMemory.undo` removes them.
   */
  undo(count: number): void {
    const live = [...this.live];
    let users = 0;
    for (let i = live.length - 1; i >= 0 && users < count; i--) {
      const origin = this.origins.get(live[i])?.kind;
      if (origin === 'injection') continue;
      if (origin === 'compaction_summary') break;
      const [removed] = live.splice(i, 1);
      if (this.isRealUserInput(removed)) users++;
    }
    this.openSteps.clear();
    this.replace(live, 'undo');
  }

  private isRealUserInput(m: Message): boolean {
    if (m.role !== 'user') return false;
    const origin = this.origins.get(m);
    if (KEPT_ORIGINS.has(origin?.kind as string | undefined)) return true;
    return SLASH_ORIGINS.has(origin?.kind as string) && origin?.trigger === 'user-slash';
  }

  /** The context becomes `messages`: copies of them join the log as what the source put in its place. */
  private replace(messages: Message[], kind: Replacement['kind'], summaryAt?: number, tokensBefore?: number): void {
    const from = this.log.length;
    const copies = messages.map((m) => {
      const { usage: _usage, model: _model, ...rest } = m;
      const copy: Message = { ...rest, is_compact_summary: true } as Message;
      const origin = this.origins.get(m);
      if (origin) this.origins.set(copy, origin);
      return copy;
    });
    this.log.push(...copies);
    this.live = copies;
    this.replacements.push({
      from,
      to: this.log.length,
      kind,
      ...(summaryAt !== undefined && summaryAt >= 0 ? { summary: from + summaryAt } : {}),
      ...(tokensBefore !== undefined ? { tokensBefore } : {}),
    });
  }

  private push(message: Message): void {
    this.log.push(message);
    this.live.push(message);
  }
}

/** A tool's output (`ExecutableToolResult.output`): a string, or content parts whose texts are joined. */
function resultText(output: unknown): string | ContentPart[] {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return output === undefined || output === null ? '' : JSON.stringify(output);
  return contentParts(output);
}

function contentParts(parts: unknown[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const p of parts) {
    if (!isObject(p)) continue;
    if (p.type === 'text' && typeof p.text === 'string') out.push({ type: 'text', text: p.text });
    else if (p.type === 'image_url' && isObject(p.imageUrl) && typeof p.imageUrl.url === 'string')
      out.push({ type: 'image_url', image_url: { url: p.imageUrl.url } });
    else if (p.type === 'image_url' && isObject(p.image_url) && typeof p.image_url.url === 'string')
      out.push({ type: 'image_url', image_url: { url: p.image_url.url } });
    else if (p.type !== 'think') out.push({ type: 'text', text: JSON.stringify(p) });
  }
  return out;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** A ContextMessage as a canonical message, or why it is not one. */
function toMessage(raw: Record<string, unknown>): Message | string {
  const role = raw.role as string;
  if (!ROLES.has(role)) return `unknown role "${role}"`;
  if (!Array.isArray(raw.content) && typeof raw.content !== 'string') return 'content is neither a string nor a list of parts';
  const parts = typeof raw.content === 'string' ? [{ type: 'text' as const, text: raw.content }] : contentParts(raw.content);
  const text = (): string | ContentPart[] => (parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts);
  if (role === 'tool') {
    if (typeof raw.toolCallId !== 'string') return 'a tool message needs a toolCallId';
    return { role: 'tool', tool_call_id: raw.toolCallId, content: text() };
  }
  if (role !== 'assistant') return { role, content: text() } as Message;
  const texts = parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  const message: Message = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
  const thoughts = Array.isArray(raw.content)
    ? raw.content.flatMap((p) => (isObject(p) && p.type === 'think' && typeof p.think === 'string' && p.think !== '' ? [p.think] : []))
    : [];
  if (thoughts.length > 0) message.reasoning_content = thoughts.join('\n\n');
  const calls: ToolCall[] = [];
  for (const c of Array.isArray(raw.toolCalls) ? raw.toolCalls : []) {
    // Protocol 1.0 wrapped the name and arguments in `function` (records/migration/v1.1.ts).
    const fn = isObject(c) && isObject(c.function) ? c.function : c;
    if (!isObject(c) || typeof c.id !== 'string' || !isObject(fn) || typeof fn.name !== 'string') return 'toolCalls: expected {id, name, arguments}';
    calls.push({ id: c.id, type: 'function', function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '{}' } });
  }
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}
