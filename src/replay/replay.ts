import type { ContextManager } from '../context/context-manager.js';
import type { PolicyInstance } from './policies/policy.js';
import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { countMessage, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { DEFAULT_THRESHOLDS } from '../tokens/window.js';
import { type CacheRules, DEFAULT_CALL_GAP_SECONDS } from '../provider/cache-rules.js';
import { callModelOf } from './billing/cache-choice.js';
import { CallClock } from './billing/call-clock.js';
import { PromptCache } from './billing/prompt-cache.js';
import { contentBlocks, rulesForModel } from '../provider/cache-rules.js';
import {
  answeringModel,
  branchFrom,
  branchPoint,
  callThread,
  historyMessage,
  isModelCall,
  isSourceSummary,
  recordedOutputOf,
  resumeLeftOut,
  timestampMs,
} from '../model/recorded.js';
import { keepsReasoningPerTurn, withoutReasoning } from '../model/turn-reasoning.js';
import type { UnloggedSpan } from './billing/token-ratio.js';
import { type MessageView, replaceByViews, tokensTaken } from '../model/context-views.js';
import { withoutCalls, withoutEarlierThinking } from './message-views.js';

/** How one transcript's agent loop is replayed under one policy. */
export interface ReplayLoopOptions {
  tokenizer: Tokenizer;
  window: number;
  /** Fraction of the window counted as the hard limit (calls at or above it). @default 0.98 */
  hardLimit?: number;
  /**
   * Tokens every call sends besides the transcript's messages and tools: the system prompt and tool definitions an
   * agent adds but its session file does not record (Claude Code's). Counted in every prompt, always cached. @default 0
   */
  basePrompt?: number;
  /**
   * The base prompt of the call of the assistant message at this index, where it is not `basePrompt` (a client that
   * sends each model its own system prompt): the difference is added to that call's prompt, always cached like the
   * base. @default basePrompt for every call
   */
  basePromptOf?: (messageIndex: number) => number | undefined;
  /**
   * Whether the provider strips, from this reply's call, the thinking of the assistant turns before the last user prompt
   * (see provider/thinking-rules.ts). Those replies then enter the prompt without their reasoning, as new content from
   * the first one stripped on (the prefix the cache saw changed there). @default never
   */
  stripsEarlierThinking?: (reply: Message) => boolean;
  /**
   * Told each call's prompt size, in call order (for a chart of one transcript's prompts), and how it was billed (to
   * hold each call against its record).
   */
  onCall?: (promptTokens: number, call: ReplayedCall) => void;
  /**
   * Told each compaction the manager made (micro-compaction not included): the index in `transcript.messages` of the
   * reply whose call it preceded, and the context after it.
   */
  onCompaction?: (messageIndex: number, context: readonly Message[]) => void;
  /**
   * Every micro-compaction that changes the prompt is a compaction point for `onCompaction` too, whatever the policy
   * (masking loses what it masked, as a clear does): how `tune` compares micro-compaction with clearing. @default false
   */
  microIsCompaction?: boolean;
  /** The provider's prompt cache. */
  cache: CacheRules;
  /** The model each call is billed as, for `byModel`. @default its recorded model (billing/cache-choice.ts callModelOf) */
  modelOf?: (reply: Message) => string;
  /** Seconds between calls in a transcript without timestamps. @default DEFAULT_CALL_GAP_SECONDS */
  callGapSeconds?: number;
  /**
   * Tokens of the base prefix held warm from outside the conversation at the call of the assistant message at this
   * index (see CachedPrompt.warmBase). @default none
   */
  warmBase?: (messageIndex: number) => number;
  /**
   * Tokens of the base prefix the provider read at the call of the assistant message at this index, as recorded (see
   * CachedPrompt.baseHeld); undefined where nothing was recorded. @default none
   */
  baseHeld?: (messageIndex: number) => number | undefined;
  /**
   * Tokens the provider had with a message that the transcript does not hold, and the calls whose prompts held them (see
   * billing/token-ratio.ts `unloggedGrowth`): billed with the message wherever it sits in those prompts; the policies,
   * which count the transcript's text, do not see them. @default none
   */
  unlogged?: readonly UnloggedSpan[];
}

/** How one call of a replay was billed, beside its prompt size. */
export interface ReplayedCall {
  /** The index in `transcript.messages` of the reply the call produced. */
  messageIndex: number;
  /** Of the prompt, tokens read from the cache and tokens written to it. */
  read: number;
  written: number;
  /** Of the prompt, unlogged tokens (see ReplayLoopOptions.unlogged). */
  unlogged: number;
}

/** What one transcript's replay under one policy cost, in tokens. */
export interface ReplayStats {
  /** Model calls: one per assistant message, but a synthetic reply (see model/recorded.ts `isModelCall`). */
  calls: number;
  /** Sum of every call's prompt (all earlier messages as the policy left them, plus tool definitions). */
  billedInput: number;
  /**
   * The part of `billedInput` read from the prompt cache. Under the ideal cache: at each call, the tokens of the
   * longest run of leading messages identical to the previous call's prompt (tool definitions included once anything
   * matches), and the rest of the input is written.
   */
  cachedInput: number;
  /** The part of `billedInput` written to the cache. The rest (`billedInput - cachedInput - cacheWrites`) is plain input. */
  cacheWrites: number;
  /** Sum of the assistant messages' tokens: the same under every policy. */
  outputTokens: number;
  /** Compactions the manager made (micro-compaction not included). */
  compactions: number;
  /** Calls at which micro-compaction changed the context. */
  microCompactions: number;
  peakPrompt: number;
  /** The first call's prompt (0 without calls). */
  firstPrompt: number;
  /** Calls whose prompt was at or above the hard limit. */
  callsOverHardLimit: number;
  /** Calls whose prompt did not fit the window at all. */
  callsOverWindow: number;
  /** The manager gave up (max attempts in a row without getting under the trigger). */
  stuck: boolean;
  /**
   * Input tokens a call did not read from the cache beyond what was new since that cache's previous call: the prefix it
   * had to send again (none without a cache). `cold`: the cache had expired (a gap over the TTL); `edits`: the policy
   * changed the prompt since that call; `other`: the rules missed it otherwise (Anthropic's lookback, a prompt under
   * the minimum).
   */
  rewritten: { cold: number; edits: number; other: number };
  /** The calls' tokens by the model each call is billed as, in the order the models first answer: they add up to the totals above. */
  byModel: Record<string, ModelBill>;
}

/** One model's calls in a replay: what they were billed, in tokens. */
export interface ModelBill {
  calls: number;
  billedInput: number;
  cachedInput: number;
  cacheWrites: number;
  outputTokens: number;
  rewritten: { cold: number; edits: number; other: number };
}

/** The figures of a replay with no calls yet (also the zero that totals start from). */
export function emptyReplayStats(): ReplayStats {
  return {
    calls: 0,
    billedInput: 0,
    cachedInput: 0,
    outputTokens: 0,
    compactions: 0,
    microCompactions: 0,
    peakPrompt: 0,
    firstPrompt: 0,
    callsOverHardLimit: 0,
    callsOverWindow: 0,
    stuck: false,
    cacheWrites: 0,
    rewritten: { cold: 0, edits: 0, other: 0 },
    byModel: {},
  };
}

const tokensOf = (m: Message, tok: Tokenizer) => totalOf(countMessage(m, tok));

/**
 * Messages the replay leaves out: the summary Claude Code inserted at its own compaction (marked
 * `is_compact_summary` by the adapter) only exists because that session compacted; the counterfactual agent loop
 * never receives it.
 */
export function replayed(message: Message): boolean {
  return !isSourceSummary(message);
}

/**
 * Replays a transcript as the agent loop that produced it: each assistant message is one model call whose prompt is
 * every earlier message as the policy left it. In a session whose history forks (`thread`, see model/message.ts),
 * earlier means earlier on the call's own branch: each branch is a thread with its own context, so what the branches
 * share is billed once. A branch is a conversation of its own, as it is in an agent runtime (a second process going on
 * from the session's file): under a policy with a manager it starts from the history at the fork as the session holds
 * it, with a fresh manager (see ContextManager.fresh), as the adapters' `ManagedConversation` starts one; under the
 * other policies, whose edits the runtime keeps in its history, from the context at the fork. The context grows by one message at a time; token totals are kept
 * incrementally (each message is encoded once, `countMessage` being memoized per object), and after a compaction the
 * new context is summed from memoized counts, so the cost is linear in messages per call and never re-encodes text.
 */
export async function replay(transcript: Transcript, policy: PolicyInstance, options: ReplayLoopOptions): Promise<ReplayStats> {
  const tok = options.tokenizer;
  const hardTokens = (options.hardLimit ?? DEFAULT_THRESHOLDS.hardLimit) * options.window;
  const toolsTokens = (transcript.tools && transcript.tools.length > 0 ? tok.count(JSON.stringify(transcript.tools)) : 0) + (options.basePrompt ?? 0);
  const stats = emptyReplayStats();
  let context: Message[] = [];
  let tokens = toolsTokens;
  const rules = options.cache;
  const modelOf = options.modelOf ?? callModelOf(transcript);
  const caches = new Map<string, { cache: PromptCache; lastAtMs?: number; appendedAt: number; editsAt: number }>();
  const cacheOf = (m: Message) => {
    const model = (rules.perModel && answeringModel(m)) || '';
    let entry = caches.get(model);
    if (!entry) caches.set(model, (entry = { cache: new PromptCache(rulesForModel(rules, model || modelOf(m))), appendedAt: 0, editsAt: 0 }));
    return entry;
  };
  const ttlMs = rules.ttlSeconds === null ? Number.POSITIVE_INFINITY : rules.ttlSeconds * 1000;
  // Tokens appended to the context and edits made to it, from the start: what each cache has seen since its last call.
  let appended = toolsTokens;
  let edits = 0;
  const clock = new CallClock(transcript.messages, (options.callGapSeconds ?? DEFAULT_CALL_GAP_SECONDS) * 1000);
  // Unlogged tokens by message: billed with their message in the calls they last, never seen by the policies.
  const spansAt = new Map<number, UnloggedSpan[]>();
  for (const span of options.unlogged ?? []) spansAt.set(span.at, [...(spansAt.get(span.at) ?? []), span]);
  const unlogged = new Map<Message, UnloggedSpan[]>();
  // A source's summary is never replayed as history: what its spans carry is billed wherever a policy puts it.
  for (const [at, spans] of spansAt) if (isSourceSummary(transcript.messages[at])) unlogged.set(transcript.messages[at], spans);
  // The index of the reply whose call is being billed.
  let callAt = -1;
  const extraOf = (m: Message) => {
    const spans = unlogged.get(m);
    if (!spans) return 0;
    let n = 0;
    for (const s of spans) if (callAt >= s.from && (s.until === undefined || callAt < s.until)) n += s.tokens;
    return n;
  };
  const sized = (m: Message) => tokensOf(m, tok) + extraOf(m);
  const unloggedIn = (messages: readonly Message[]) => (unlogged.size === 0 ? 0 : messages.reduce((n, m) => n + extraOf(m), 0));
  const perTurnReasoning = keepsReasoningPerTurn(transcript.metadata);

  // A forked session's branches are threads of their own: each its own context and manager, from the shared start on.
  // `history` is the thread's messages as the session holds them, without the policy's edits: a new branch's start.
  const threads = new Map<number, { context: Message[]; tokens: number; history: Message[]; manager?: ContextManager }>();
  const branchPoints = new Map<number, Message[]>();
  let thread = 0;
  let manager = policy.manager;
  const managers = manager ? [manager] : [];
  let history: Message[] = [];
  // The cache knows a message by its object; two branches' managers make equal edits as different objects, which the
  // provider reads from the cache all the same: a forked session's prompts are billed by content.
  const byContent = transcript.messages.some((m) => callThread(m) !== 0) ? contentInterner() : undefined;

  /**
   * The context's messages replaced by their views (see model/context-views.ts), and the thread's history alike: the totals
   * follow each message to its view, and so do its unlogged spans. Whether the context changed.
   */
  const replaceContext = (view: MessageView): boolean => {
    const viewed = replaceByViews(context, view);
    tokens -= tokensTaken(viewed.changed, (m) => tokensOf(m, tok));
    for (const [before, after] of viewed.changed) {
      const spans = unlogged.get(before);
      if (after !== undefined && spans !== undefined) unlogged.set(after, spans);
    }
    if (manager) history = [...replaceByViews(history, view).messages];
    if (viewed.changed.length === 0) return false;
    context = [...viewed.messages];
    return true;
  };

  for (const [messageIndex, message] of transcript.messages.entries()) {
    const atMs = clock.next(message);
    if (!replayed(message)) continue;
    if (callThread(message) !== thread) {
      threads.set(thread, { context, tokens, history, manager });
      thread = callThread(message);
      const known = threads.get(thread);
      if (known) ({ context, tokens, history, manager } = known);
      else {
        const from = branchFrom(message);
        history = from === undefined ? [] : [...(branchPoints.get(from) ?? [])];
        context = [...history];
        tokens = history.reduce((n, m) => n + tokensOf(m, tok), toolsTokens);
        manager = policy.manager?.fresh();
        if (manager) managers.push(manager);
      }
    }
    // A new turn: the finished turns' reasoning leaves the prompt (Codex, see model/turn-reasoning.ts).
    if (perTurnReasoning && message.role === 'user') replaceContext(withoutReasoning);
    // A resume rebuilt the prompt from the chain: the calls it left out and their results are sent no more.
    const leftOut = resumeLeftOut(message);
    if (leftOut.length > 0 && replaceContext(withoutCalls(new Set(leftOut)))) edits++;
    if (message.unrecorded_request === true) {
      // A request the user interrupted, which reached the provider: it sent the context so far and wrote the cache,
      // with no reply and no recorded usage (formats/_claude-code-interrupts.ts). Billed as sent; no call of the record.
      const next = transcript.messages.findIndex((m, j) => j > messageIndex && isModelCall(m));
      const target = next < 0 ? message : transcript.messages[next];
      callAt = messageIndex;
      // Sent before the interruption was logged: at the latest time the log shows by then.
      const sentAtMs = timestampMs(message) ?? atMs;
      const prompt = tokens + unloggedIn(context);
      const own = cacheOf(target);
      const billed = own.cache.call({
        messages: byContent ? context.map(byContent) : context,
        tokensOf: (i) => sized(context[i]),
        blocksOf: (i) => contentBlocks(context[i]),
        baseTokens: toolsTokens,
        atMs: sentAtMs,
      });
      addBill(stats, modelOf(target), prompt, billed);
      Object.assign(own, { lastAtMs: sentAtMs, appendedAt: appended, editsAt: edits });
    }
    if (isModelCall(message)) {
      callAt = messageIndex;
      if (policy.micro) {
        const out = await policy.micro({ messages: context, tokens, window: options.window, reason: 'threshold' });
        if (out.messages !== context && !sameMessages(out.messages, context)) {
          stats.microCompactions++;
          edits++;
          context = [...out.messages];
          tokens = out.tokens;
          if (policy.microIsCompaction || options.microIsCompaction) options.onCompaction?.(messageIndex, context);
        }
      }
      if (policy.at) {
        const out = await policy.at(stats.calls, { messages: context, tokens, window: options.window, reason: 'requested' });
        if (out) {
          stats.compactions++;
          edits++;
          context = [...out.messages];
          tokens = out.tokens;
        }
      }
      if (manager) {
        const result = await manager.check({ messages: context, tokens, at: atMs });
        if (result.microCompacted) stats.microCompactions++;
        if (result.messages !== context) {
          edits++;
          context = [...result.messages];
          tokens = result.tokens;
        }
        if (result.status === 'compacted' || (result.microCompacted && options.microIsCompaction)) options.onCompaction?.(messageIndex, context);
      }
      stats.calls++;
      const ownBase = options.basePromptOf?.(messageIndex);
      const baseDelta = ownBase === undefined ? 0 : ownBase - (options.basePrompt ?? 0);
      // The thinking the provider strips is left out of this call only: the context keeps it for the next.
      const { messages: sent, changed: strippedThinking } = options.stripsEarlierThinking?.(message)
        ? replaceByViews(context, withoutEarlierThinking(context))
        : { messages: context, changed: [] };
      const stripped = tokensTaken(strippedThinking, sized, (m) => tokensOf(m, tok));
      const unloggedTokens = unloggedIn(context);
      const prompt = tokens + unloggedTokens + baseDelta - stripped;
      if (stats.calls === 1) stats.firstPrompt = prompt;
      const own = cacheOf(message);
      const billed = own.cache.call({
        messages: byContent ? sent.map(byContent) : sent,
        tokensOf: (i) => sized(sent[i]),
        blocksOf: (i) => contentBlocks(sent[i]),
        baseTokens: toolsTokens + baseDelta,
        atMs,
        warmBase: options.warmBase?.(messageIndex),
        baseHeld: options.baseHeld?.(messageIndex),
      });
      options.onCall?.(prompt, { messageIndex, read: billed.read, written: billed.written, unlogged: unloggedTokens });
      const bill = addBill(stats, modelOf(message), prompt, billed);
      const rewritten = rules.kind === 'off' ? 0 : Math.max(0, prompt - billed.read - (appended - own.appendedAt));
      const cold = own.lastAtMs !== undefined && atMs - own.lastAtMs > ttlMs;
      const cause = cold ? 'cold' : edits > own.editsAt ? 'edits' : 'other';
      stats.rewritten[cause] += rewritten;
      bill.calls++;
      const output = recordedOutputOf(message) ?? tokensOf(message, tok);
      bill.outputTokens += output;
      bill.rewritten[cause] += rewritten;
      Object.assign(own, { lastAtMs: atMs, appendedAt: appended, editsAt: edits });
      stats.peakPrompt = Math.max(stats.peakPrompt, prompt);
      if (prompt >= hardTokens) stats.callsOverHardLimit++;
      if (prompt > options.window) stats.callsOverWindow++;
      stats.outputTokens += output;
    }
    // Later prompts hold the message as the client sends it back: a retried reply not at all, thoughts left out.
    const kept = historyMessage(message);
    if (kept) {
      const spans = spansAt.get(messageIndex);
      if (spans) unlogged.set(kept, spans);
      context.push(kept);
      if (manager) history.push(kept);
      tokens += tokensOf(kept, tok);
      appended += tokensOf(kept, tok) + (spans?.filter((s) => s.from === messageIndex + 1).reduce((n, s) => n + s.tokens, 0) ?? 0);
    }
    const point = branchPoint(message);
    if (point !== undefined) branchPoints.set(point, manager ? [...history] : [...context]);
  }
  for (const m of managers) {
    stats.compactions += m.state.compactions;
    stats.stuck ||= m.state.stuck;
  }
  return stats;
}

/** The first message seen with each content, for any message with that content (each message serialised once). */
function contentInterner(): (m: Message) => Message {
  const keys = new WeakMap<Message, string>();
  const first = new Map<string, Message>();
  return (m) => {
    let key = keys.get(m);
    if (key === undefined) keys.set(m, (key = JSON.stringify(m)));
    let known = first.get(key);
    if (known === undefined) first.set(key, (known = m));
    return known;
  };
}

/** Adds one request's input, as its cache billed it, to the replay's figures and to its model's; returns the model's. */
function addBill(stats: ReplayStats, model: string, prompt: number, billed: { read: number; written: number }): ModelBill {
  stats.billedInput += prompt;
  stats.cachedInput += billed.read;
  stats.cacheWrites += billed.written;
  const bill = (stats.byModel[model] ??= emptyModelBill());
  bill.billedInput += prompt;
  bill.cachedInput += billed.read;
  bill.cacheWrites += billed.written;
  return bill;
}

function emptyModelBill(): ModelBill {
  return { calls: 0, billedInput: 0, cachedInput: 0, cacheWrites: 0, outputTokens: 0, rewritten: { cold: 0, edits: 0, other: 0 } };
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
