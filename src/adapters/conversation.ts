import { ContextManager, type EditReason } from '../context/context-manager.js';
import type { ContextManagerOptionsInput } from '../context/options.js';
import type { Message } from '../model/message.js';
import { countMessage, totalOf } from '../tokens/breakdown.js';
import { getTokenizer } from '../tokens/tokenizer.js';

/** What one `check()` of an adapter's manager decided: told to the caller before the model call. */
export interface CheckReport {
  status: 'ok' | 'warning' | 'needs_approval' | 'hard_limit' | 'compacted';
  /** Why the manager edited the prompt, or did not (see ContextManager's `EditReason`). */
  reason: EditReason;
  /** Tokens of the prompt sent, as the manager counts them. */
  tokens: number;
  /** Tokens of the prompt before the edits of this call. */
  tokensBefore: number;
  /** tokens / window */
  share: number;
  /** A cache-aware edit or micro-compaction changed the prompt at this call. */
  microCompacted: boolean;
  /**
   * Leading messages of the prompt sent that stay the same until the next edit: the manager's frozen boundary as of the
   * last edit that changed the prompt (see ContextManager.stableMessages), where a cache breakpoint keeps being read.
   */
  stableMessages: number;
}

/** What an adapter takes besides the ContextManager options (which load unchanged from tune's `tcompact.json`). */
export interface AdapterHooks {
  /** Told every check's figures and reason, before the call goes out. */
  onCheck?: (report: CheckReport) => void;
  /** The time of each call, in epoch milliseconds (the manager weighs its edits against the cache's TTL). @default Date.now */
  now?: () => number;
}

/**
 * One conversation under a ContextManager, for a runtime that hands over its whole history before each call: the
 * runtime's history stays whole, and the prompt sent is the prompt the manager left at the last call followed by what
 * the history gained since. That is the prompt a replay of the same loop gives the manager (`simulate --policy
 * config:FILE`). A history that no longer starts with the one seen (the caller rewrote it) starts the conversation over. A
 * runtime that hands over new objects for the same messages is followed by content, at the cost of comparing them.
 */
export class ManagedConversation {
  private manager: ContextManager;
  private readonly tokenizer;
  private readonly baseTokens: number;
  /** The canonical history seen at the last call. */
  private seen: readonly Message[] = [];
  /** The prompt the manager left at the last call, and its tokens. */
  private sent: readonly Message[] = [];
  private sentTokens: number;
  /** The stable prefix as of the last edit that changed the prompt (see CheckReport.stableMessages). */
  private stable = 0;

  constructor(
    private readonly options: ContextManagerOptionsInput,
    private readonly hooks: AdapterHooks = {},
  ) {
    // Bad options fail here, with the zod message naming each bad path.
    this.manager = new ContextManager(options);
    this.tokenizer = getTokenizer(this.manager.options.tokenizer);
    const tools = this.manager.options.tools;
    this.baseTokens = (tools && tools.length > 0 ? this.tokenizer.count(JSON.stringify(tools)) : 0) + this.manager.options.extraTokens;
    this.sentTokens = this.baseTokens;
  }

  /** The prompt to send for a history: the manager's edits of the earlier calls, what is new, and this call's check. */
  async prompt(history: readonly Message[]): Promise<{ messages: readonly Message[]; report: CheckReport }> {
    if (!startsWith(history, this.seen)) this.restart();
    let messages: Message[] | readonly Message[] = this.sent;
    let tokens = this.sentTokens;
    if (history.length > this.seen.length) {
      const added = history.slice(this.seen.length);
      messages = [...this.sent, ...added];
      for (const m of added) tokens += totalOf(countMessage(m, this.tokenizer));
    }
    const result = await this.manager.check({ messages, tokens, at: this.hooks.now?.() ?? Date.now() });
    // The manager also freezes its boundary when an edit it tried saved nothing; the marks move only with the prompt.
    if (result.messages !== messages) this.stable = this.manager.stableMessages;
    this.seen = history;
    this.sent = result.messages;
    this.sentTokens = result.tokens;
    const report: CheckReport = {
      status: result.status,
      reason: result.reason,
      tokens: result.tokens,
      tokensBefore: tokens,
      share: result.share,
      microCompacted: result.microCompacted,
      stableMessages: this.stable,
    };
    this.hooks.onCheck?.(report);
    return { messages: result.messages, report };
  }

  private restart(): void {
    this.manager = new ContextManager(this.options);
    this.seen = [];
    this.sent = [];
    this.sentTokens = this.baseTokens;
    this.stable = 0;
  }
}

/** Whether the history goes on from the one seen: the same messages (by identity, else by content) first. */
function startsWith(history: readonly Message[], seen: readonly Message[]): boolean {
  if (history.length < seen.length) return false;
  for (let i = 0; i < seen.length; i++) if (history[i] !== seen[i] && jsonOf(history[i]) !== jsonOf(seen[i])) return false;
  return true;
}

/**
 * A message's JSON, made once per object: a runtime that hands over new objects for its messages at every call is
 * compared with the history seen at each call, and keeps handing over the same ones after that.
 */
const jsons = new WeakMap<Message, string>();
function jsonOf(m: Message): string {
  let json = jsons.get(m);
  if (json === undefined) jsons.set(m, (json = JSON.stringify(m)));
  return json;
}
