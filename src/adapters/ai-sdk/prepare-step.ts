import type { LanguageModel, ModelMessage } from 'ai';
import type { ContextManagerOptionsInput } from '../../context/options.js';
import type { Message, ToolMessage } from '../../model/message.js';
import { type AdapterHooks, type CheckReport, ManagedConversation } from '../conversation.js';
import { MadeOnce } from '../made-once.js';
import { fromModelMessage, toModelMessage, toolOutput } from './model-messages.js';

type ToolPart = Extract<ModelMessage, { role: 'tool' }>['content'][number];

export interface AiSdkHooks extends AdapterHooks {
  /**
   * Marks `providerOptions.anthropic.cacheControl` on the last message of the manager's stable prefix and on the last
   * message. `auto`: when the step's model is an Anthropic provider's. @default 'auto'
   */
  cacheControl?: boolean | 'auto';
}

/** What the prepareStep of {@link tcompactPrepareStep} hands back to the SDK. */
interface PreparedStep {
  messages: ModelMessage[];
}

/** A prepareStep made by {@link tcompactPrepareStep}; `lastCheck` is the figures of its latest step. */
export interface TcompactPrepareStep {
  (step: { messages: ModelMessage[]; model: LanguageModel }): Promise<PreparedStep>;
  readonly lastCheck: CheckReport | undefined;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * A `prepareStep` for `generateText`/`streamText` that runs a ContextManager before every step of one conversation
 * (keep one per conversation, across its `generateText` calls). The SDK hands over the whole history at each step; the
 * adapter sends the manager's edited prompt for it and leaves the SDK's history whole. Messages the manager left alone
 * go out as the very objects the SDK gave (their `providerOptions` kept); an edited tool result keeps its part's other
 * fields. Throws E_CONFIG on bad options, naming each bad path.
 */
export function tcompactPrepareStep(options: ContextManagerOptionsInput, hooks: AiSdkHooks = {}): TcompactPrepareStep {
  let lastCheck: CheckReport | undefined;
  const conversation = new ManagedConversation(options, { ...hooks, onCheck: (r) => ((lastCheck = r), hooks.onCheck?.(r)) });
  const messages = new ModelMessageMap();
  const prepare = async ({ messages: history, model }: { messages: ModelMessage[]; model: LanguageModel }): Promise<PreparedStep> => {
    const { messages: prompt, report } = await conversation.prompt(messages.canonical(history));
    const out = messages.back(prompt);
    const mark = hooks.cacheControl ?? 'auto';
    if (mark === true || (mark === 'auto' && isAnthropic(model))) markCache(out.messages, [out.indexOf[report.stableMessages - 1], out.messages.length - 1]);
    return { messages: out.messages };
  };
  return Object.defineProperty(prepare, 'lastCheck', { get: () => lastCheck }) as TcompactPrepareStep;
}

function isAnthropic(model: LanguageModel): boolean {
  return typeof model === 'object' && model !== null && 'provider' in model && String(model.provider).startsWith('anthropic');
}

/** Marks the messages at these indices (undefined ones skipped) for Anthropic's cache, on copies. */
function markCache(messages: ModelMessage[], at: readonly (number | undefined)[]): void {
  for (const i of new Set(at)) {
    if (i === undefined || i < 0) continue;
    const m = messages[i];
    const anthropic = { ...(m.providerOptions?.anthropic ?? {}), cacheControl: EPHEMERAL };
    messages[i] = { ...m, providerOptions: { ...m.providerOptions, anthropic } } as ModelMessage;
  }
}

/** The SDK's messages as canonical ones (each converted once), and back: unchanged ones to their own objects. */
class ModelMessageMap {
  private readonly memo = new WeakMap<ModelMessage, Message[]>();
  private readonly origin = new WeakMap<Message, { message: ModelMessage; part?: ToolPart }>();
  /** Tool-result parts and tool names by call id, for a result the manager replaced. */
  private readonly parts = new Map<string, ToolPart>();
  private readonly names = new Map<string, string>();
  /** What was made for each message of the manager's own: an edited result's part, a summary's messages. */
  private readonly madeParts = new MadeOnce<ToolPart>();
  private readonly made = new MadeOnce<ModelMessage[]>();

  /** An edited result's part: the caller's part it replaces with the new output, or one of its own. */
  private madePart(m: ToolMessage, earlier: ToolPart | undefined): ToolPart {
    const toolName = this.names.get(m.tool_call_id);
    return this.madeParts.of(
      m,
      [earlier, toolName],
      () => ({ ...(earlier ?? { type: 'tool-result', toolCallId: m.tool_call_id, toolName: toolName ?? '' }), output: toolOutput(m) }) as ToolPart,
    );
  }

  /** A message of the manager's own (a summary) as ModelMessages, made once. */
  private madeMessages(m: Message): ModelMessage[] {
    return this.made.of(m, [], () => toModelMessage(m, (id) => this.names.get(id) ?? ''));
  }

  canonical(history: readonly ModelMessage[]): Message[] {
    const out: Message[] = [];
    for (const m of history) {
      let converted = this.memo.get(m);
      if (!converted) {
        converted = fromModelMessage(m);
        this.memo.set(m, converted);
        const results = m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : [];
        converted.forEach((c, i) => this.origin.set(c, { message: m, part: results[i] }));
        for (const p of results) this.parts.set(p.toolCallId, p);
        if (m.role === 'assistant' && typeof m.content !== 'string')
          for (const p of m.content) if (p.type === 'tool-call') this.names.set(p.toolCallId, p.toolName);
      }
      out.push(...converted);
    }
    return out;
  }

  /** ModelMessages for a prompt, and where each canonical message went. */
  back(prompt: readonly Message[]): { messages: ModelMessage[]; indexOf: number[] } {
    const out: ModelMessage[] = [];
    const indexOf: number[] = [];
    let group: { parts: ToolPart[]; from: (ModelMessage | undefined)[] } | undefined;
    const flush = () => {
      if (!group) return;
      const source = group.from[0];
      const whole =
        source?.role === 'tool' &&
        group.from.every((f) => f === source) &&
        group.parts.length === source.content.filter((p) => p.type === 'tool-result').length;
      out.push(whole ? source : { role: 'tool', content: group.parts });
      group = undefined;
    };
    for (const m of prompt) {
      const origin = this.origin.get(m);
      if (m.role === 'tool') {
        group ??= { parts: [], from: [] };
        const tm = m as ToolMessage;
        const earlier = this.parts.get(tm.tool_call_id);
        const part: ToolPart = origin?.part ?? this.madePart(tm, earlier);
        group.parts.push(part);
        group.from.push(origin?.part ? origin.message : undefined);
        indexOf.push(out.length);
        continue;
      }
      flush();
      indexOf.push(out.length);
      if (origin) out.push(origin.message);
      else out.push(...this.madeMessages(m));
    }
    flush();
    return { messages: out, indexOf };
  }
}
