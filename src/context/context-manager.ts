import type { Message } from '../model/message.js';
import { RefSink } from '../refs/ref-store.js';
import { TcompactError } from '../errors.js';
import { type Tokenizer, getTokenizer } from '../tokens/tokenizer.js';
import { type ContextManagerOptions, type ContextManagerOptionsInput, parseContextManagerOptions } from './options.js';
import type { CompactionHandler, CompactionRequest, ContextInput } from './compaction-handler.js';
import { strategyCompaction, validateStrategyNames } from './strategy-compaction.js';

type CheckResult =
  | {
      status: 'ok' | 'warning' | 'needs_approval' | 'hard_limit';
      /** The messages to send: the input's, or what micro-compaction made of them. */
      messages: readonly Message[];
      tokens: number;
      /** tokens / window */
      share: number;
      /** Micro-compaction changed the messages (and saved tokens). */
      microCompacted: boolean;
    }
  | {
      status: 'compacted';
      /** The compacted messages: send these instead. */
      messages: readonly Message[];
      tokens: number;
      /** The prompt's size as given to `check()` or `compact()`. */
      tokensBefore: number;
      share: number;
      microCompacted: boolean;
    };

interface ContextManagerState {
  /** Compactions that reduced the prompt. */
  compactions: number;
  /** Checks at which micro-compaction reduced the prompt. */
  microCompactions: number;
  /** Attempts in a row that left the prompt above the trigger. */
  failedAttempts: number;
  /** Gave up after `maxAttempts` failed attempts in a row: no more compaction. */
  stuck: boolean;
  /** Checks left before compaction may be attempted again. */
  cooldownLeft: number;
}

/**
 * Decides, before each model call, whether the prompt must be compacted: the trigger an agent loop embeds, and the one
 * `tcompact simulate` drives (its `default` policy is this class with its default options). With its defaults it
 * pairs micro-compaction on every call (`micro`: `mask-observations`) with compaction at the trigger (`strategies`:
 * `auto`, or the handler given). Thresholds are fractions of the window: below `warning` the status is `ok`; from
 * `warning`, `warning`; from the trigger (`compaction`, or `compactAtTokens`), a compaction is due; from `hardLimit`,
 * `hard_limit` when no compaction happens.
 *
 * In `auto` mode a due compaction runs the handler at once and returns `compacted` with the new messages (or the plain
 * status when the handler saved nothing). In `approval` mode it returns `needs_approval`; the caller then calls
 * `compact()` or `decline()`. In `manual` mode `check()` only reports. After every attempt, and after a decline, the
 * next `cooldown` checks attempt nothing; after `maxAttempts` attempts in a row that leave the prompt above the
 * trigger, the manager is stuck and attempts nothing more.
 */
export class ContextManager {
  readonly options: Readonly<ContextManagerOptions>;
  private readonly handler: CompactionHandler;
  private readonly micro: CompactionHandler | undefined;
  private compactionsDone = 0;
  private microDone = 0;
  private failedInARow = 0;
  private cooldownLeft = 0;

  /**
   * @param handler compacts at the trigger. @default the `strategies` option run by `strategyCompaction`, with one side
   * store for the conversation (so a checkpoint can read an earlier one through its ref)
   * @param tokenizer counts for the built-in handlers; it must count as `options.tokenizer` names (a replay passes one
   * scaled to its provider's tokens). @default the thread's shared tokenizer of `options.tokenizer`
   */
  constructor(options: ContextManagerOptionsInput, handler?: CompactionHandler, tokenizer?: Tokenizer) {
    this.options = parseContextManagerOptions(options);
    const o = this.options;
    if (tokenizer && tokenizer.name !== o.tokenizer) {
      throw new TcompactError('E_CONFIG', `ContextManager: the tokenizer given counts ${tokenizer.name}, the options name ${o.tokenizer}`);
    }
    const counter = tokenizer ?? getTokenizer(o.tokenizer);
    const refs = new RefSink();
    const builtIn = (strategies: readonly string[]) => {
      validateStrategyNames(strategies, counter);
      return strategyCompaction({ strategies, tokenizer: counter, refs, tools: o.tools, extraTokens: o.extraTokens });
    };
    this.handler = handler ?? builtIn(o.strategies);
    this.micro = o.micro.length > 0 ? builtIn(o.micro) : undefined;
  }

  /** Prompt size from which a compaction is due. */
  get triggerTokens(): number {
    return this.options.compactAtTokens ?? this.options.thresholds.compaction * this.options.window;
  }

  get state(): ContextManagerState {
    return {
      compactions: this.compactionsDone,
      microCompactions: this.microDone,
      failedAttempts: this.failedInARow,
      stuck: this.stuck,
      cooldownLeft: this.cooldownLeft,
    };
  }

  private get stuck(): boolean {
    return this.failedInARow >= this.options.maxAttempts;
  }

  /** The status of a prompt of `tokens` tokens when no compaction happens. */
  statusOf(tokens: number): 'ok' | 'warning' | 'hard_limit' {
    const share = tokens / this.options.window;
    if (share >= this.options.thresholds.hardLimit) return 'hard_limit';
    if (share >= this.options.thresholds.warning || tokens >= this.triggerTokens) return 'warning';
    return 'ok';
  }

  /**
   * Micro-compacts the prompt (when `micro` is not empty), then compacts it if it is at or over the trigger (auto
   * mode), or reports its status.
   */
  async check(input: ContextInput): Promise<CheckResult> {
    const current = await this.microCompact(input);
    const microCompacted = current !== input;
    const inCooldown = this.cooldownLeft > 0;
    if (inCooldown) this.cooldownLeft--;
    const due = current.tokens >= this.triggerTokens && !inCooldown && !this.stuck;
    if (due && this.options.mode === 'approval') return this.plain('needs_approval', current, microCompacted);
    if (due && this.options.mode === 'auto') return this.attempt(current, 'threshold', input.tokens, microCompacted);
    return this.plain(this.statusOf(current.tokens), current, microCompacted);
  }

  /**
   * Compacts now, whatever the thresholds (after `needs_approval`, or at any time in manual mode). Counts as an
   * attempt and starts the cooldown like an automatic one.
   */
  async compact(input: ContextInput): Promise<CheckResult> {
    return this.attempt(input, 'requested', input.tokens, false);
  }

  private async microCompact(input: ContextInput): Promise<ContextInput> {
    if (!this.micro) return input;
    const out = await this.micro({ messages: input.messages, tokens: input.tokens, window: this.options.window, reason: 'threshold' });
    if (out.tokens >= input.tokens || sameMessages(out.messages, input.messages)) return input;
    this.microDone++;
    return { messages: out.messages, tokens: out.tokens };
  }

  /** The caller declined a `needs_approval`: no new request until the cooldown has passed. */
  decline(): void {
    this.cooldownLeft = this.options.cooldown;
  }

  private async attempt(input: ContextInput, reason: CompactionRequest['reason'], tokensBefore: number, microCompacted: boolean): Promise<CheckResult> {
    const out = await this.handler({ messages: input.messages, tokens: input.tokens, window: this.options.window, reason });
    this.cooldownLeft = this.options.cooldown;
    const saved = out.tokens < input.tokens;
    if (saved && out.tokens < this.triggerTokens) this.failedInARow = 0;
    else this.failedInARow++;
    if (!saved) return this.plain(this.statusOf(input.tokens), input, microCompacted);
    this.compactionsDone++;
    return { status: 'compacted', messages: out.messages, tokens: out.tokens, tokensBefore, share: out.tokens / this.options.window, microCompacted };
  }

  private plain(status: 'ok' | 'warning' | 'needs_approval' | 'hard_limit', input: ContextInput, microCompacted: boolean): CheckResult {
    return { status, messages: input.messages, tokens: input.tokens, share: input.tokens / this.options.window, microCompacted };
  }
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
