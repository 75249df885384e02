import type { CompactionHandler } from '../../context/compaction-handler.js';
import { ContextManager } from '../../context/context-manager.js';
import type { ContextManagerOptionsInput } from '../../context/options.js';
import { type StrategyCompactionOptions, strategyCompaction, validateStrategyNames, withFocus } from '../../context/strategy-compaction.js';
import { TcompactError } from '../../errors.js';
import type { LlmSession } from '../../llm/session.js';
import { type Message, type UserMessage, isTool } from '../../model/message.js';
import { lastUserRequestIndex } from '../../model/validity.js';
import type { ToolDef, Transcript } from '../../model/transcript.js';
import { RefSink } from '../../refs/ref-store.js';
import { stepFor } from '../../strategies/build-steps.js';
import { parseCompactConfig } from '../../strategies/compact-config.js';
import { runSteps } from '../../strategies/runner.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { PolicyInstance } from '../replay.js';
import { SOURCE_OWN, SOURCE_PREFIX, sourcePolicy } from './source-policy.js';
import { contextTokens } from '../replay.js';
import { isRuntimePolicy, runtimePolicy } from './runtime/runtime-policy.js';

/** What a policy needs to make its handlers for one transcript. */
export interface PolicyEnv {
  tokenizer: Tokenizer;
  window: number;
  tools?: ToolDef[];
  /** Tokens every prompt carries besides messages and tools (see ReplayOptions.basePrompt). @default 0 */
  basePrompt?: number;
  /** Checks after each compaction during which none is attempted. @default 0 */
  cooldown?: number;
  /** Failed compactions in a row before the run is stuck. @default 3 */
  maxAttempts?: number;
  /** The model of the policies' LLM steps (`summarize@0.9`); without it such a policy is refused. @default none */
  llm?: LlmSession;
  /** summarize's focus in the policies' pipelines (`--focus`). @default none */
  focus?: string;
  /** The transcript being replayed (the `source` policies read its compaction points). */
  transcript?: Transcript;
  /** The protected tail of the strategies' pipelines (`--keep-last`, `--keep-messages`, `--keep-results`). @default the strategies' defaults */
  tail?: TailOptions;
}

/** The protected tail's three parts, as in the compact config. */
export interface TailOptions {
  keepLast?: number;
  keepMessages?: number;
  keepResults?: number;
}

/** A strategy plus its trigger. */
export interface Policy {
  name: string;
  summary: string;
  /** Strategies and presets the policy runs, checked before a replay starts. */
  requires: string[];
  /** A fresh instance per transcript (managers and ref sinks hold per-conversation state). */
  instantiate(env: PolicyEnv): PolicyInstance;
}

/** A manager that compacts with `handler` at the trigger and does nothing on other calls (no micro-compaction). */
function manager(env: PolicyEnv, handler: CompactionHandler, trigger: Pick<ContextManagerOptionsInput, 'compactAtTokens'> = {}): ContextManager {
  return new ContextManager({ window: env.window, cooldown: env.cooldown ?? 0, maxAttempts: env.maxAttempts ?? 3, micro: [], ...trigger }, handler);
}

const leadingSystem = (messages: readonly Message[]) => {
  let i = 0;
  while (i < messages.length && (messages[i].role === 'system' || messages[i].role === 'developer')) i++;
  return i;
};

/**
 * The seeds' compaction: keep a head and a tail, and replace everything between them with one deterministic
 * `checkpoint` message (the stand-in for the seeds' summary, so the replay needs no model). `tail` is a number of last
 * messages (moved back so it never starts with a tool result) or `last-request`: only the last user request, placed
 * after the checkpoint, which then covers everything the agent did since that request as well.
 *
 * The `checkpoint` strategy never summarizes across the last user request; to checkpoint exactly the span the seed
 * names, the span is passed to it followed by an empty user message that takes that role, and which is dropped after.
 */
export function checkpointMiddle(head: number | 'system', tail: number | 'last-request', env: PolicyEnv, refs: RefSink): CompactionHandler {
  return ({ messages, tokens, window }) => {
    const unchanged = { messages: [...messages], tokens };
    const headEnd = Math.min(messages.length, head === 'system' ? leadingSystem(messages) : head);
    let middle: Message[];
    let kept: Message[];
    if (tail === 'last-request') {
      const last = lastUserRequestIndex(messages);
      if (last < headEnd) return unchanged;
      middle = [...messages.slice(headEnd, last), ...messages.slice(last + 1)];
      kept = [messages[last]];
    } else {
      let tailStart = Math.max(headEnd, messages.length - tail);
      while (tailStart > headEnd && isTool(messages[tailStart])) tailStart--;
      middle = messages.slice(headEnd, tailStart);
      kept = messages.slice(tailStart);
    }
    if (middle.length < 2) return unchanged;
    const stand: UserMessage = { role: 'user', content: '' };
    const step = stepFor(
      'checkpoint',
      // The stand-in request alone is the protected tail: the whole middle is the seed's to replace.
      parseCompactConfig({
        strategies: ['checkpoint'],
        keepFirst: headEnd,
        keepLast: 0,
        keepMessages: 1,
        keepResults: 0,
        window,
        tokenizer: env.tokenizer.name,
      }),
    );
    const input = [...messages.slice(0, headEnd), ...middle, stand];
    const result = runSteps({ id: 'context', messages: input }, [step], { tokenizer: env.tokenizer, refs, window });
    const out = result.transcript.messages;
    if (out.length === input.length || out[out.length - 1] !== stand) return unchanged;
    const next = [...out.slice(0, -1), ...kept];
    return { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + (env.basePrompt ?? 0) };
  };
}

function strategyPolicy(
  name: string,
  summary: string,
  strategies: string[],
  trigger: 'every' | { fraction: number } | { tokens: number },
  config: StrategyCompactionOptions['config'] = {},
): Policy {
  return {
    name,
    summary,
    requires: strategies,
    instantiate(env) {
      const refs = new RefSink();
      const handler = strategyCompaction({
        strategies,
        tokenizer: env.tokenizer,
        tools: env.tools,
        extraTokens: env.basePrompt,
        refs,
        config: withFocus({ ...env.tail, ...config }, env.focus),
        llm: env.llm,
      });
      if (trigger === 'every') return { micro: handler };
      const compactAtTokens = 'tokens' in trigger ? trigger.tokens : Math.max(1, Math.floor(trigger.fraction * env.window));
      return { manager: manager(env, handler, { compactAtTokens }) };
    },
  };
}

/** The built-in policies, by name. */
export const POLICIES: Readonly<Record<string, Policy>> = {
  none: { name: 'none', summary: 'no compaction: every call sends the whole history', requires: [], instantiate: () => ({}) },
  default: {
    name: 'default',
    summary: "ContextManager's defaults: mask-observations on every call, the auto pipeline at 90% of the window",
    requires: ['mask-observations', 'auto'],
    instantiate(env) {
      const options = { window: env.window, cooldown: env.cooldown ?? 0, maxAttempts: env.maxAttempts ?? 3, tokenizer: env.tokenizer.name };
      return { manager: new ContextManager({ ...options, tools: env.tools, extraTokens: env.basePrompt ?? 0 }, undefined, env.tokenizer) };
    },
  },
  'mask-10': strategyPolicy(
    'mask-10',
    'micro-compaction on every call: mask-observations keeping the last 10 tool results (keepLast 0)',
    ['mask-observations'],
    'every',
    {
      keepLast: 0,
      keepMessages: 0,
      keepResults: 10,
    },
  ),
  'checkpoint-at-0.9': strategyPolicy('checkpoint-at-0.9', 'checkpoint when the prompt reaches 90% of the window', ['checkpoint'], { fraction: 0.9 }),
  auto: strategyPolicy('auto', 'the auto pipeline when the prompt reaches 90% of the window', ['auto'], { fraction: 0.9 }),
  'seed-80-first3-last10': {
    name: 'seed-80-first3-last10',
    summary: 'at 80% of the window, keep the first 3 and the last 10 messages and checkpoint the rest',
    requires: ['checkpoint'],
    instantiate(env) {
      return { manager: manager(env, checkpointMiddle(3, 10, env, new RefSink()), { compactAtTokens: Math.floor(0.8 * env.window) }) };
    },
  },
  'seed-200k-system-last-user': {
    name: 'seed-200k-system-last-user',
    summary: 'at 200,000 tokens, keep the system prompt and the last user request and checkpoint the rest',
    requires: ['checkpoint'],
    instantiate(env) {
      return { manager: manager(env, checkpointMiddle('system', 'last-request', env, new RefSink()), { compactAtTokens: 200_000 }) };
    },
  },
};

export const DEFAULT_POLICIES = ['none', 'default', 'mask-10', 'checkpoint-at-0.9', 'auto', 'seed-80-first3-last10', 'seed-200k-system-last-user'];

const CUSTOM = /^([^@]+)@(every|\d+(?:\.\d+)?)$/;

/**
 * A policy by name: a built-in one, or `STRATEGIES@TRIGGER` where STRATEGIES is a strategy or preset (several joined
 * with `+`) and TRIGGER is `every` (micro-compaction on every call), a fraction of the window below 1 (`0.85`), or a
 * token count (`150000`).
 */
export function resolvePolicy(name: string, tokenizer: Tokenizer, { withModel = false } = {}): Policy {
  const builtIn = POLICIES[name];
  if (builtIn) {
    if (builtIn.requires.length > 0) validateStrategyNames(builtIn.requires, tokenizer, withModel);
    return builtIn;
  }
  if (name === SOURCE_OWN) return sourcePolicy('own');
  if (name.startsWith(SOURCE_PREFIX)) {
    const strategies = name.slice(SOURCE_PREFIX.length).split('+');
    validateStrategyNames(strategies, tokenizer, withModel);
    return sourcePolicy(strategies);
  }
  if (isRuntimePolicy(name)) return runtimePolicy(name);
  const m = CUSTOM.exec(name);
  if (!m) {
    throw new TcompactError(
      'E_USAGE',
      `unknown policy "${name}" (built-in: ${Object.keys(POLICIES).join(', ')}, ${SOURCE_OWN}; or STRATEGY[+STRATEGY]@every|FRACTION|TOKENS, or ${SOURCE_PREFIX}STRATEGY[+STRATEGY], or anthropic:FILE, ai-sdk:FILE, config:FILE)`,
    );
  }
  const strategies = m[1].split('+');
  validateStrategyNames(strategies, tokenizer, withModel);
  if (m[2] === 'every') return strategyPolicy(name, `${strategies.join(' then ')} on every call`, strategies, 'every');
  const n = Number(m[2]);
  if (n > 0 && n < 1) return strategyPolicy(name, `${strategies.join(' then ')} at ${n * 100}% of the window`, strategies, { fraction: n });
  if (Number.isInteger(n) && n >= 1) return strategyPolicy(name, `${strategies.join(' then ')} at ${n} tokens`, strategies, { tokens: n });
  throw new TcompactError('E_USAGE', `policy "${name}": the trigger must be "every", a fraction between 0 and 1, or a whole number of tokens`);
}
