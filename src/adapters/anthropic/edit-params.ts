import type Anthropic from '@anthropic-ai/sdk';
import type { ContextManagerOptionsInput } from '../../context/options.js';
import type { Message, ToolMessage } from '../../model/message.js';
import { type AdapterHooks, type CheckReport, ManagedConversation } from '../conversation.js';
import { MadeOnce } from '../made-once.js';
import { type Piece, fromAnthropicMessage, toAnthropicBlocks, toolResultBlock } from './anthropic-messages.js';

type Block = Anthropic.ContentBlockParam;
/** What the editor reads and writes of `messages.create` params; every other field passes through. */
type Params = { messages: Anthropic.MessageParam[]; system?: Anthropic.MessageCreateParams['system']; tools?: Anthropic.MessageCreateParams['tools'] };

/** The most `cache_control` breakpoints one request may hold. */
export const MAX_BREAKPOINTS = 4;
const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/** Edits the params of one conversation's `messages.create` calls; `lastCheck` is the figures of its latest call. */
export interface TcompactAnthropic {
  <P extends Params>(params: P): Promise<P>;
  readonly lastCheck: CheckReport | undefined;
}

/**
 * Edits `messages.create` params before each call of one conversation (keep one per conversation): the manager's
 * prompt for the whole `messages` given, messages it left whole sent as the very objects given, and `cache_control`
 * breakpoints on the system prompt (when it has none of the caller's), the end of the manager's stable prefix, the
 * end of the previous call's prompt when nothing was edited since, and the last block: never more than 4 with the
 * caller's own. `system` and `tools` are not counted by the manager: give their tokens as `extraTokens` (or `tools`).
 * Throws E_CONFIG on bad options, naming each bad path.
 */
export function tcompactAnthropic(options: ContextManagerOptionsInput, hooks: AdapterHooks = {}): TcompactAnthropic {
  let lastCheck: CheckReport | undefined;
  const conversation = new ManagedConversation(options, { ...hooks, onCheck: (r) => ((lastCheck = r), hooks.onCheck?.(r)) });
  const map = new AnthropicMessageMap();
  let previousLength = 0;
  const edit = async <P extends Params>(params: P): Promise<P> => {
    const { messages: prompt, report } = await conversation.prompt(map.canonical(params.messages));
    const { messages, endOf } = map.back(prompt);
    const unedited = report.reason === 'none' && !report.microCompacted && report.status !== 'compacted';
    const at = [endOf[report.stableMessages - 1], unedited ? endOf[previousLength - 1] : undefined, messages.length - 1];
    previousLength = prompt.length;
    const system = params.system;
    let left = MAX_BREAKPOINTS - countBreakpoints(params);
    let markedSystem: P['system'] = system;
    if (system !== undefined && system !== '' && left > 0 && !hasMark(system)) {
      markedSystem = markLast(typeof system === 'string' ? [{ type: 'text', text: system }] : system);
      left--;
    }
    const marked = markMessages(messages, at, left);
    return { ...params, ...(system === undefined ? {} : { system: markedSystem }), messages: marked };
  };
  return Object.defineProperty(edit, 'lastCheck', { get: () => lastCheck }) as TcompactAnthropic;
}

type Marked = { cache_control?: unknown; content?: unknown };

/** Breakpoints in blocks (a tool result's own blocks included), without serializing them. */
function marksIn(blocks: unknown): number {
  if (!Array.isArray(blocks)) return 0;
  let n = 0;
  for (const b of blocks as Marked[]) {
    if (b === null || typeof b !== 'object') continue;
    if (b.cache_control) n++;
    if (Array.isArray(b.content)) n += marksIn(b.content);
  }
  return n;
}

function hasMark(value: unknown): boolean {
  return marksIn(value) > 0;
}

/** Breakpoints the caller put in the params. */
function countBreakpoints(params: Params): number {
  let n = marksIn(params.system) + marksIn(params.tools);
  for (const m of params.messages) n += marksIn(m.content);
  return n;
}

function markLast<B extends { cache_control?: Anthropic.CacheControlEphemeral | null }>(blocks: readonly B[]): B[] {
  return blocks.map((b, i) => (i === blocks.length - 1 ? { ...b, cache_control: EPHEMERAL } : b));
}

/** Marks the last block of the messages at these indices, at most `left` of them, on copies; the first given wins. */
function markMessages(messages: Anthropic.MessageParam[], at: readonly (number | undefined)[], left: number): Anthropic.MessageParam[] {
  const chosen = [...new Set(at.filter((i): i is number => i !== undefined && i >= 0))];
  // The last message is always worth a mark; the stable prefix next, then the previous prompt's end.
  const last = messages.length - 1;
  const order = [last, ...chosen.filter((i) => i !== last)].slice(0, Math.max(0, left));
  const out = [...messages];
  for (const i of order) {
    const m = out[i];
    if (hasMark(m.content)) continue;
    const blocks = (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content) as Block[];
    if (blocks.length === 0) continue;
    out[i] = { ...m, content: markLast(blocks as (Block & { cache_control?: Anthropic.CacheControlEphemeral | null })[]) } as Anthropic.MessageParam;
  }
  return out;
}

/** The conversation's MessageParams as canonical messages (each converted once), and back. */
class AnthropicMessageMap {
  private readonly memo = new WeakMap<Anthropic.MessageParam, Piece[]>();
  private readonly origin = new WeakMap<Message, { message: Anthropic.MessageParam; blocks: readonly Block[] }>();
  /** The message each original block came from, and how many pieces each message gave. */
  private readonly ownerOf = new WeakMap<object, Anthropic.MessageParam>();
  /** tool_result blocks and their messages by call id, for a result the manager replaced. */
  private readonly results = new Map<string, { block: Anthropic.ToolResultBlockParam; message: Anthropic.MessageParam }>();
  private readonly made = new MadeOnce<Made>();

  canonical(history: readonly Anthropic.MessageParam[]): Message[] {
    const out: Message[] = [];
    for (const m of history) {
      let pieces = this.memo.get(m);
      if (!pieces) {
        pieces = fromAnthropicMessage(m);
        this.memo.set(m, pieces);
        for (const p of pieces) {
          this.origin.set(p.message, { message: m, blocks: p.blocks });
          for (const b of p.blocks) {
            this.ownerOf.set(b, m);
            if (b.type === 'tool_result') this.results.set(b.tool_use_id, { block: b, message: m });
          }
        }
      }
      for (const p of pieces) out.push(p.message);
    }
    return out;
  }

  /**
   * MessageParams for a prompt, and the index of the message that ends with each canonical message. Pieces of one
   * message go back into it (the very object when all its pieces are there unchanged); others get their own.
   */
  back(prompt: readonly Message[]): { messages: Anthropic.MessageParam[]; endOf: number[] } {
    const out: Anthropic.MessageParam[] = [];
    const endOf: number[] = [];
    let current: { owner: Anthropic.MessageParam | undefined; role: 'user' | 'assistant'; blocks: Block[]; whole: boolean } | undefined;
    const flush = () => {
      if (!current) return;
      const owner = current.owner;
      const same =
        owner !== undefined && current.whole && (typeof owner.content === 'string' ? current.blocks.length === 0 : sameBlocks(owner.content, current.blocks));
      out.push(same ? owner : ({ role: current.role, content: current.blocks } as Anthropic.MessageParam));
      current = undefined;
    };
    for (const m of prompt) {
      const origin = this.origin.get(m);
      let owner: Anthropic.MessageParam | undefined;
      let blocks: readonly Block[];
      let whole = true;
      let role: 'user' | 'assistant';
      if (origin) {
        owner = origin.message;
        role = owner.role === 'assistant' ? 'assistant' : 'user';
        // A string message is its own piece: no blocks.
        blocks = [...origin.blocks];
      } else {
        ({ owner, role, blocks, whole } = this.madeOf(m));
      }
      if (!current || current.owner === undefined || current.owner !== owner) {
        flush();
        current = { owner, role, blocks: [], whole: true };
      }
      current.blocks.push(...blocks);
      current.whole &&= whole;
      endOf.push(out.length);
    }
    flush();
    return { messages: out, endOf };
  }

  /**
   * The blocks of a message of the manager's own (an edited result, a summary), made once: the manager sends an edit
   * again at every later call until the next one, as the same message object. An edited result goes back into the
   * message its original came from, with its other fields.
   */
  private madeOf(m: Message): Made {
    const earlier = m.role === 'tool' ? this.results.get((m as ToolMessage).tool_call_id) : undefined;
    return this.made.of(m, [earlier], () =>
      earlier
        ? { owner: earlier.message, role: 'user', blocks: [{ ...earlier.block, ...toolResultBlock(m as ToolMessage) }], whole: false }
        : { owner: undefined, whole: true, ...toAnthropicBlocks(m) },
    );
  }
}

/** A message of the manager's own as blocks, and the caller's message they go back into, if any. */
interface Made {
  owner: Anthropic.MessageParam | undefined;
  role: 'user' | 'assistant';
  blocks: readonly Block[];
  whole: boolean;
}

function sameBlocks(a: readonly Block[], b: readonly Block[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
