import type { AssistantMessage, Message, ToolCall } from '../model/message.js';
import { type CopilotRun, shutdownMetrics } from './_copilot-usage.js';
import { isObject } from './_items.js';
import type { Accepted } from './_records.js';

/**
 * A Copilot CLI compaction in metadata.compactions: its summary's message and what Copilot recorded of it, or a
 * `/clear` (`cleared`: the context starts over empty at `at`).
 */
export interface CopilotCompaction {
  summaryIndex?: number;
  /** A `session.context_cleared`: the first message after it. */
  clearedAt?: number;
  preTokens?: number;
  /** Copilot's trigger (`auto`, `manual`...), named apart from Claude Code's boundary `trigger`: this point is its summary. */
  compactionTrigger?: string;
  messagesRemoved?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Whether a JSON Lines record is a Copilot CLI session event: a dotted type (`session.start`, `user.message`) or
 * `abort`, a `data` object and a string `timestamp`; `id` a string and `parentId` a string or null where recorded (the
 * published schema has both; the events its peers' tests quote from earlier builds have neither).
 */
export function isCopilotEvent(value: unknown): boolean {
  if (!isObject(value) || !isCopilotEventType(value.type) || !isObject(value.data) || typeof value.timestamp !== 'string') return false;
  return (
    (value.id === undefined || typeof value.id === 'string') && (value.parentId === undefined || value.parentId === null || typeof value.parentId === 'string')
  );
}

/** Copilot's event types are `<area>.<event>` (session, user, assistant, tool, subagent, hook...), and `abort`. */
export const isCopilotEventType = (type: unknown): boolean => typeof type === 'string' && (type === 'abort' || /^[a-z_]+(\.[a-z_]+)+$/.test(type));

/** The text a tool result gave the model: `result.content`, else the error's message. */
function toolResultText(data: Record<string, unknown>): string {
  const result = isObject(data.result) ? data.result : undefined;
  if (typeof result?.content === 'string') return result.content;
  const error = isObject(data.error) ? data.error : undefined;
  if (typeof error?.message === 'string') return error.message;
  return '';
}

/**
 * A Copilot CLI session (`events.jsonl`), event by event, then as one transcript. See copilot.ts for what each event
 * becomes; the usage is kept per run (`_copilot-usage.ts`).
 */
export class CopilotSession {
  readonly metadata: Record<string, unknown> = {};
  readonly messages: Message[] = [];
  readonly compactions: CopilotCompaction[] = [];
  readonly runs: CopilotRun[] = [];
  private readonly models: string[] = [];
  /** Tool calls already requested by a reply, by id: a `tool.execution_start` adds only those no reply named. */
  private readonly requested = new Set<string>();
  /** The `apiCallId` of the last reply: a later chunk of the same call is no call of its own. */
  private lastCall: string | undefined;
  /** Reasoning recorded as its own event, for the reply that follows it. */
  private pendingReasoning: string[] = [];
  private pendingCompaction: { preTokens?: number; trigger?: string } | undefined;

  private get run(): CopilotRun {
    if (this.runs.length === 0 || this.runs[this.runs.length - 1].shutdown) this.runs.push({ replyOutput: 0 });
    return this.runs[this.runs.length - 1];
  }

  accept(value: unknown): Accepted {
    if (!isObject(value) || typeof value.type !== 'string') return { kind: 'error', message: 'expected a Copilot CLI event (an object with a type)' };
    if (!isCopilotEventType(value.type)) return { kind: 'error', message: `type: "${value.type}" is no Copilot CLI event type` };
    const type = value.type;
    const data = isObject(value.data) ? value.data : undefined;
    if (!data) return { kind: 'error', message: `${type}: expected a data object` };
    // A subagent's events (`agentId`, formerly `parentToolCallId`) are its own conversation, not the session's prompt.
    if (typeof value.agentId === 'string' || typeof data.parentToolCallId === 'string') return { kind: 'skipped', reason: `record:subagent/${type}` };
    const timestamp = str(value.timestamp);
    switch (type) {
      case 'session.start':
      case 'session.resume':
        return this.start(type, data);
      case 'session.shutdown':
        this.run.shutdown = shutdownMetrics(data.modelMetrics);
        if (typeof data.currentModel === 'string') this.metadata.currentModel = data.currentModel;
        return { kind: 'kept' };
      case 'system.message': {
        const role = data.role === 'developer' ? 'developer' : 'system';
        if (typeof data.content !== 'string') return { kind: 'error', message: 'system.message: expected a string content' };
        this.push({ role, content: data.content }, timestamp);
        return { kind: 'kept' };
      }
      case 'user.message': {
        // What the model was sent (`transformedContent`: the text wrapped with its context), else what was typed.
        const content = str(data.transformedContent) ?? str(data.content);
        if (content === undefined) return { kind: 'error', message: 'user.message: expected a string content' };
        this.push({ role: 'user', content }, timestamp);
        return { kind: 'kept' };
      }
      case 'assistant.reasoning':
        if (typeof data.content !== 'string') return { kind: 'error', message: 'assistant.reasoning: expected a string content' };
        this.pendingReasoning.push(data.content);
        return { kind: 'kept' };
      case 'assistant.message':
        return this.reply(data, timestamp);
      case 'tool.execution_start':
        return this.toolStart(data);
      case 'tool.execution_complete': {
        const id = str(data.toolCallId);
        if (id === undefined || id === '') return { kind: 'error', message: 'tool.execution_complete: expected a toolCallId' };
        this.push({ role: 'tool', tool_call_id: id, content: toolResultText(data), ...(data.success === false ? { is_error: true } : {}) }, timestamp);
        return { kind: 'kept' };
      }
      case 'session.compaction_start':
        this.pendingCompaction = { ...optional('preTokens', num(data.currentTokens)), ...optional('trigger', str(data.trigger)) };
        return { kind: 'kept' };
      case 'session.compaction_complete':
        return this.compaction(data, timestamp);
      case 'session.context_cleared':
        this.compactions.push({ clearedAt: this.messages.length, ...optional('messagesRemoved', num(data.messagesCleared)) });
        return { kind: 'kept' };
      case 'session.model_change':
        if (typeof data.newModel !== 'string') return { kind: 'skipped', reason: `record:${type}` };
        this.metadata.lastModelChange = data.newModel;
        return { kind: 'kept' };
      default:
        return { kind: 'skipped', reason: `record:${type}` };
    }
  }

  private start(type: string, data: Record<string, unknown>): Accepted {
    if (type === 'session.start') {
      if (typeof data.sessionId !== 'string') return { kind: 'error', message: 'session.start: expected a string sessionId' };
      this.metadata.sessionId = data.sessionId;
      for (const key of ['copilotVersion', 'producer', 'startTime', 'selectedModel', 'reasoningEffort'] as const)
        if (data[key] !== undefined) this.metadata[key] = data[key];
      if (typeof data.version === 'number') this.metadata.eventsVersion = data.version;
    } else this.metadata.resumes = (typeof this.metadata.resumes === 'number' ? this.metadata.resumes : 0) + 1;
    const context = isObject(data.context) ? data.context : undefined;
    if (typeof context?.cwd === 'string') this.metadata.cwd = context.cwd;
    if (typeof context?.branch === 'string') this.metadata.gitBranch = context.branch;
    if (typeof context?.repository === 'string') this.metadata.repository = context.repository;
    // A run the previous one left without a shutdown ends here: its replies' output is all that is left of its usage.
    this.runs.push({ replyOutput: 0 });
    return { kind: 'kept' };
  }

  private reply(data: Record<string, unknown>, timestamp: string | undefined): Accepted {
    if (typeof data.content !== 'string') return { kind: 'error', message: 'assistant.message: expected a string content' };
    const calls: ToolCall[] = [];
    for (const request of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
      const call = toolCallOf(request);
      if (!call) return { kind: 'error', message: 'assistant.message: toolRequests: expected {toolCallId, name, arguments?}' };
      this.requested.add(call.id);
      calls.push(call);
    }
    // `assistant.reasoning` is the timeline's copy of the thinking a reply may also carry as `reasoningText`: one of the two.
    const reasoning = typeof data.reasoningText === 'string' && data.reasoningText !== '' ? [data.reasoningText] : this.pendingReasoning;
    this.pendingReasoning = [];
    const m: AssistantMessage = { role: 'assistant', content: data.content };
    if (calls.length > 0) m.tool_calls = calls;
    if (reasoning.length > 0) {
      m.reasoning_content = reasoning.join('\n\n');
      // Copilot strips the reasoning it kept (`reasoningOpaque`, `encryptedContent`) on resume and sends the readable text to no model.
      m.reasoning_not_resent = true;
    }
    if (typeof data.model === 'string') {
      m.model = data.model;
      if (!this.models.includes(data.model)) this.models.push(data.model);
    }
    const output = num(data.outputTokens);
    if (output !== undefined) {
      m.recorded_output_tokens = output;
      this.run.replyOutput += output;
    }
    const call = str(data.apiCallId);
    if (call !== undefined && call === this.lastCall) m.continues_call = true;
    this.lastCall = call;
    if (typeof data.messageId === 'string') m.copilot_message_id = data.messageId;
    this.push(m, timestamp);
    return { kind: 'kept' };
  }

  /** A tool run: its request is the reply's (`toolRequests`); one no reply named joins the last reply's calls. */
  private toolStart(data: Record<string, unknown>): Accepted {
    const id = str(data.toolCallId);
    if (id === undefined || id === '' || typeof data.toolName !== 'string')
      return { kind: 'error', message: 'tool.execution_start: expected a toolCallId and toolName' };
    if (this.requested.has(id)) return { kind: 'skipped', reason: 'record:tool.execution_start' };
    const last = [...this.messages].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
    if (!last) return { kind: 'skipped', reason: 'record:tool.execution_start/no-reply' };
    this.requested.add(id);
    last.tool_calls = [...(last.tool_calls ?? []), { id, type: 'function', function: { name: data.toolName, arguments: argumentsText(data.arguments) } }];
    return { kind: 'kept' };
  }

  private compaction(data: Record<string, unknown>, timestamp: string | undefined): Accepted {
    const started = this.pendingCompaction ?? {};
    this.pendingCompaction = undefined;
    if (data.success !== true || typeof data.summaryContent !== 'string' || data.summaryContent === '')
      return { kind: 'skipped', reason: 'record:session.compaction_complete/no-summary' };
    this.push({ role: 'user', content: data.summaryContent, is_compact_summary: true }, timestamp);
    const c: CopilotCompaction = { summaryIndex: this.messages.length - 1 };
    const pre = num(data.preCompactionTokens) ?? started.preTokens;
    if (pre !== undefined) c.preTokens = pre;
    const trigger = str(data.trigger) ?? started.trigger;
    if (trigger !== undefined) c.compactionTrigger = trigger;
    const removed = num(data.messagesRemoved);
    if (removed !== undefined) c.messagesRemoved = removed;
    this.compactions.push(c);
    return { kind: 'kept' };
  }

  private push(m: Message, timestamp: string | undefined): void {
    if (timestamp !== undefined) m.timestamp = timestamp;
    this.messages.push(m);
  }

  finish(): void {
    if (this.models.length > 0) this.metadata.models = this.models;
  }
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}

function toolCallOf(request: unknown): ToolCall | undefined {
  if (!isObject(request) || typeof request.toolCallId !== 'string' || request.toolCallId === '') return undefined;
  // `name` in the published schema; early readers saw `toolName`.
  const name = str(request.name) ?? str(request.toolName);
  if (name === undefined) return undefined;
  return { id: request.toolCallId, type: 'function', function: { name, arguments: argumentsText(request.arguments) } };
}
