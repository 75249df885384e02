import type { CompactionHandler } from '../../context/compaction-handler.js';
import { ContextManager } from '../../context/context-manager.js';
import type { ContextManagerOptionsInput } from '../../context/options.js';
import { type StrategyCompactionOptions, strategyCompaction, withFocus } from '../../context/strategy-compaction.js';
import { type Message, type UserMessage, isTool } from '../../model/message.js';
import { lastUserRequestIndex } from '../../model/validity.js';
import { RefSink } from '../../refs/ref-store.js';
import { stepFor } from '../../strategies/build-steps.js';
import { parseCompactConfig } from '../../strategies/compact-config.js';
import { runSteps } from '../../strategies/runner.js';
import { contextTokens } from '../../tokens/breakdown.js';
import type { Policy, PolicyEnv } from './policy.js';

/** A manager that compacts with `handler` at the trigger and does nothing on other calls (no micro-compaction). */
function manager(env: PolicyEnv, handler: CompactionHandler, trigger: Pick<ContextManagerOptionsInput, 'compactAtTokens'> = {}): ContextManager {
  return new ContextManager({ window: env.window, cooldown: env.cooldown, maxAttempts: env.maxAttempts, micro: [], edits: [], ...trigger }, handler);
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
    return { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + env.basePrompt };
  };
}

export function strategyPolicy(
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
    summary:
      "ContextManager's defaults: old tool results masked when the cache is cold or the masking pays for its rewrite, the auto pipeline at 90% of the window",
    requires: ['mask-observations', 'auto'],
    instantiate(env) {
      // The agent's own provider cache, as a user configures it for the provider the session runs on.
      const options = { window: env.window, cooldown: env.cooldown, maxAttempts: env.maxAttempts, tokenizer: env.tokenizer.name, cache: env.cache.name };
      return { manager: new ContextManager({ ...options, tools: env.tools, extraTokens: env.basePrompt }, undefined, env.tokenizer) };
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
