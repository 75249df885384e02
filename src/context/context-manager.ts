import type { Message } from '../model/message.js';
import { RefSink } from '../refs/ref-store.js';
import { TcompactError } from '../errors.js';
import { type Tokenizer, getTokenizer } from '../tokens/tokenizer.js';
import { type ContextManagerOptions, type ContextManagerOptionsInput, parseContextManagerOptions } from './options.js';
import type { CompactionHandler, CompactionRequest, ContextInput } from './compaction-handler.js';
import { type StrategyCompactionOptions, strategyCompaction, validateStrategyNames } from './strategy-compaction.js';
import { EditLedger } from './edit-ledger.js';
import { CACHE_RULES } from '../provider/cache-rules.js';

/**
 * Why a check edited the prompt, or did not: `cold`, the cache had expired, so the edit rewrote nothing that was not
 * written anyway; `pays-off`, the tokens it freed pay for the rewrite over the calls expected while the cache is warm;
 * `window`, the prompt reached the trigger; `none`, no edit.
 */
export type EditReason = 'cold' | 'pays-off' | 'window' | 'none';

type CheckResult =
  | {
      status: 'ok' | 'warning' | 'needs_approval' | 'hard_limit';
      /** The messages to send: the input's, or what an edit made of them. */
      messages: readonly Message[];
      tokens: number;
      /** tokens / window */
      share: number;
      /** An edit (micro-compaction on every call, or a cache-aware edit) changed the messages and saved tokens. */
      microCompacted: boolean;
      reason: EditReason;
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
      reason: EditReason;
    };

/** The prompt of a check, and when the call is made (epoch milliseconds; @default the clock's now). */
interface CheckInput extends ContextInput {
  at?: number;
}

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
 * Decides, before each model call, whether the prompt must be edited or compacted: the trigger an agent loop embeds,
 * and the one `tcompact simulate` drives (its `default` policy is this class with its default options). With its
 * defaults it weighs every edit against the provider's prompt cache (`cache`): it masks old tool results (`edits`)
 * when the cache is cold, when what masking frees pays for rewriting the prompt after the first masked result over the
 * calls expected before the cache goes cold again, or at the trigger; and it compacts at the trigger (`strategies`:
 * `auto`, or the handler given). Micro-compaction on every call (`micro`) is off unless asked for. Thresholds are fractions of the window: below `warning` the status is `ok`; from
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
  private readonly edit: CompactionHandler | undefined;
  private readonly ledger: EditLedger;
  private lastAt: number | undefined;
  private compactionsDone = 0;
  private microDone = 0;
  private failedInARow = 0;
  private cooldownLeft = 0;

  /**
   * @param given compacts at the trigger. @default the `strategies` option run by `strategyCompaction`, with one side
   * store for the conversation (so a checkpoint can read an earlier one through its ref)
   * @param tokenizer counts for the built-in handlers; it must count as `options.tokenizer` names (a replay passes one
   * scaled to its provider's tokens). @default the thread's shared tokenizer of `options.tokenizer`
   */
  constructor(
    private readonly input: ContextManagerOptionsInput,
    private readonly given?: CompactionHandler,
    private readonly tokenizer?: Tokenizer,
  ) {
    this.options = parseContextManagerOptions(input);
    const o = this.options;
    if (tokenizer && tokenizer.name !== o.tokenizer) {
      throw new TcompactError('E_CONFIG', `ContextManager: the tokenizer given counts ${tokenizer.name}, the options name ${o.tokenizer}`);
    }
    const counter = tokenizer ?? getTokenizer(o.tokenizer);
    const refs = new RefSink();
    const builtIn = (strategies: readonly string[], config?: StrategyCompactionOptions['config']) => {
      validateStrategyNames(strategies, counter);
      return strategyCompaction({ strategies, tokenizer: counter, refs, tools: o.tools, extraTokens: o.extraTokens, config });
    };
    this.handler = given ?? builtIn(o.strategies);
    this.micro = o.micro.length > 0 ? builtIn(o.micro) : undefined;
    const editTail = { keepLast: 0, keepResults: o.editTail.results, keepMessages: o.editTail.messages };
    this.edit = o.edits.length > 0 ? builtIn(o.edits, editTail) : undefined;
    this.ledger = new EditLedger(counter, editTail);
  }

  /**
   * A manager with the same options, handler and tokenizer and none of this one's state, for another conversation: the
   * branch of a forked session is one (see replay/replay.ts).
   */
  fresh(): ContextManager {
    return new ContextManager(this.input, this.given, this.tokenizer);
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

  /**
   * Leading messages of the last prompt checked that no cache-aware edit changes again until a compaction: the end of
   * the stable prefix, where a cache breakpoint keeps being read between edits. 0 without `edits`.
   */
  get stableMessages(): number {
    return this.edit ? this.ledger.frozen : 0;
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
   * Micro-compacts the prompt (when `micro` is not empty), makes a cache-aware edit when it is due (see the class),
   * then compacts it if it is at or over the trigger (auto mode), or reports its status. Counts only the messages that
   * are new since the last check when the caller appends to the prompt it was given.
   */
  async check(input: CheckInput): Promise<CheckResult> {
    const at = input.at ?? Date.now();
    const gapMs = this.lastAt === undefined ? undefined : at - this.lastAt;
    this.lastAt = at;
    let current = await this.microCompact(input);
    let microCompacted = current !== input;
    const inCooldown = this.cooldownLeft > 0;
    if (inCooldown) this.cooldownLeft--;
    const over = current.tokens >= this.triggerTokens;
    let reason = this.editReason(current, gapMs, over);
    if (reason !== 'none') {
      const edited = await this.editNow(current);
      if (edited !== current) microCompacted = true;
      else if (reason !== 'window') reason = 'none';
      current = edited;
    }
    const due = current.tokens >= this.triggerTokens && !inCooldown && !this.stuck;
    if (due && this.options.mode === 'approval') return this.plain('needs_approval', current, microCompacted, reason);
    if (due && this.options.mode === 'auto') return this.attempt(current, 'threshold', input.tokens, microCompacted, 'window');
    return this.plain(this.statusOf(current.tokens), current, microCompacted, reason);
  }

  /** Whether a cache-aware edit is due, and why. */
  private editReason(input: ContextInput, gapMs: number | undefined, over: boolean): EditReason {
    if (!this.edit) return 'none';
    this.ledger.observe(input.messages);
    const estimate = this.ledger.estimate();
    if (!estimate) return 'none';
    if (over) return 'window';
    const rules = CACHE_RULES[this.options.cache];
    if (gapMs !== undefined && rules.ttlSeconds !== null && gapMs > rules.ttlSeconds * 1000) return 'cold';
    // Rewriting costs the write price where a read would have cost the read price (OpenAI: plain input, no premium);
    // the tokens freed are read at every call while the cache stays warm. Anthropic finds an earlier entry only within
    // its lookback before the last mark: an edit further back has the whole prompt written again.
    const read = rules.readMultiplier;
    const write = rules.kind === 'prefix' ? 1 : rules.writeMultiplier;
    const rewritten = rules.kind === 'breakpoint' && estimate.blocksAfter > rules.lookbackBlocks ? estimate.total : estimate.after;
    return read * estimate.freed * this.options.expectedCalls > (write - read) * rewritten ? 'pays-off' : 'none';
  }

  /** The edit, when it saves tokens; either way what it left alone before the protected tail is not tried again. */
  private async editNow(input: ContextInput): Promise<ContextInput> {
    const out = await this.edit!({ messages: input.messages, tokens: input.tokens, window: this.options.window, reason: 'threshold' });
    if (out.tokens >= input.tokens || sameMessages(out.messages, input.messages)) {
      this.ledger.edited(input.messages);
      return input;
    }
    this.microDone++;
    this.ledger.edited(out.messages);
    return { messages: out.messages, tokens: out.tokens };
  }

  /**
   * Compacts now, whatever the thresholds (after `needs_approval`, or at any time in manual mode). Counts as an
   * attempt and starts the cooldown like an automatic one.
   */
  async compact(input: ContextInput): Promise<CheckResult> {
    return this.attempt(input, 'requested', input.tokens, false, 'none');
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

  private async attempt(
    input: ContextInput,
    reason: CompactionRequest['reason'],
    tokensBefore: number,
    microCompacted: boolean,
    why: EditReason,
  ): Promise<CheckResult> {
    const out = await this.handler({ messages: input.messages, tokens: input.tokens, window: this.options.window, reason });
    this.cooldownLeft = this.options.cooldown;
    const saved = out.tokens < input.tokens;
    if (saved && out.tokens < this.triggerTokens) this.failedInARow = 0;
    else this.failedInARow++;
    if (!saved) return this.plain(this.statusOf(input.tokens), input, microCompacted, why);
    this.compactionsDone++;
    // After a compaction every result of the new prompt may be masked again; what came before is gone.
    this.ledger.edited(out.messages, 0);
    return {
      status: 'compacted',
      messages: out.messages,
      tokens: out.tokens,
      tokensBefore,
      share: out.tokens / this.options.window,
      microCompacted,
      reason: why,
    };
  }

  private plain(status: 'ok' | 'warning' | 'needs_approval' | 'hard_limit', input: ContextInput, microCompacted: boolean, reason: EditReason): CheckResult {
    return { status, messages: input.messages, tokens: input.tokens, share: input.tokens / this.options.window, microCompacted, reason };
  }
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
