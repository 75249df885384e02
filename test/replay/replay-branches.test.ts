import { describe, expect, it } from 'vitest';
import { type Message, isAssistant } from '../../src/model/message.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { type Branch, CONFIGS, FIXTURE, branchesOf, bundledSessions, replayOf, writeConfig } from '../adapters/session-loop.js';
import { policyEnv } from '../helpers/policy-env.js';
import { tempDir } from '../helpers/temp-dir.js';

const tok = getTokenizer('o200k_base');
const tokensOf = (messages: readonly Message[]) => messages.reduce((n, m) => n + totalOf(countMessage(m, tok)), 0);

/** The prompts of one branch as a conversation of its own: a fresh manager, the history at the fork whole, then its calls. */
async function ownPrompts(branch: Branch, config: string, window: number): Promise<Message[][]> {
  const manager = resolvePolicy(`config:${config}`, tok).instantiate(policyEnv({ tokenizer: tok, window, cache: CACHE_RULES['anthropic-5m'] })).manager!;
  let context: readonly Message[] = branch.start;
  const prompts: Message[][] = [];
  for (const m of branch.messages) {
    if (isAssistant(m)) {
      const result = await manager.check({ messages: context, tokens: tokensOf(context), at: branch.times[prompts.length] });
      prompts.push([...result.messages]);
      context = result.messages;
    }
    context = [...context, m];
  }
  return prompts;
}

describe('replay: the branches of a forked session under a policy with a manager', () => {
  it.each(Object.entries(CONFIGS))(
    'with the %s options, each branch is a conversation of its own: a fresh manager from the history at the fork, as the adapters run one',
    async (name, options) => {
      const [t] = await bundledSessions([FIXTURE('fork')]);
      const config = writeConfig(tempDir('replay-branches'), name, options);
      const { branches, order } = branchesOf(t);
      expect(branches).toHaveLength(2);
      expect(branches[1].start.length).toBeGreaterThan(0);
      const forked = await replayOf(t, config, options.window);
      for (const [b, branch] of branches.entries()) {
        expect(
          forked.prompts.filter((_, call) => order[call] === b),
          `branch ${b}`,
        ).toEqual(await ownPrompts(branch, config, options.window));
      }
      // The managers edited each branch's prompts: where a shared manager would have edited otherwise.
      for (const b of [0, 1]) expect(forked.prompts.some((p, call) => order[call] === b && JSON.stringify(p).includes('[Previous:'))).toBe(true);
    },
  );
});
