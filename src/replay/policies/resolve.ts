import { validateStrategyNames } from '../../context/strategy-compaction.js';
import { TcompactError } from '../../errors.js';
import { buildSteps } from '../../strategies/build-steps.js';
import { parseCompactConfig } from '../../strategies/compact-config.js';
import { prepareStrategies } from '../../strategies/runner.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { POLICIES, strategyPolicy } from './built-in.js';
import { OPTIMAL_AT, optimalAtPolicy } from './optimal/frontier-policy.js';
import { OPTIMAL, OPTIMAL_RESULTS, optimalPolicy, optimalResultsPolicy } from './optimal/optimal-policy.js';
import type { Policy } from './policy.js';
import { isRuntimePolicy, runtimePolicy } from './runtime/runtime-policy.js';
import { SOURCE_OWN, SOURCE_PREFIX, sourcePolicy } from './source-policy.js';

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
  if (name === OPTIMAL) return optimalPolicy;
  if (name === OPTIMAL_RESULTS) return optimalResultsPolicy;
  if (OPTIMAL_AT.test(name)) return optimalAtPolicy(name);
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
      `unknown policy "${name}" (built-in: ${Object.keys(POLICIES).join(', ')}, ${SOURCE_OWN}, ${OPTIMAL}, ${OPTIMAL_RESULTS}, ${OPTIMAL}@RECALL; or STRATEGY[+STRATEGY]@every|FRACTION|TOKENS, or ${SOURCE_PREFIX}STRATEGY[+STRATEGY], or anthropic:FILE, langchain:FILE, ai-sdk:FILE, config:FILE)`,
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

/**
 * The policies a replay runs, in report order: `none` first (the baseline) and `optimal` (the floor), then the others
 * as named; `source` is added beside any `source:STRATEGY`, so simulate.md can compare the source's own compaction with
 * ours at its points.
 */
export function resolvePolicies(names: readonly string[], tokenizer: Tokenizer, { withModel = false } = {}): Policy[] {
  const all = ['none', OPTIMAL, ...names.filter((n) => n !== 'none' && n !== OPTIMAL)];
  if (all.some((n) => n.startsWith(SOURCE_PREFIX)) && !all.includes(SOURCE_OWN)) all.splice(2, 0, SOURCE_OWN);
  return all.map((n) => resolvePolicy(n, tokenizer, { withModel }));
}

/**
 * Awaits the preparation of every strategy the policies run (redact-secrets loads its rules): a replay runs the steps
 * synchronously, inside the policies' handlers, so they are prepared before the first replay, as a worker prepares a
 * job's steps before its first shard.
 */
export async function preparePolicies(policies: readonly Policy[], tokenizer: Tokenizer): Promise<void> {
  const names = [...new Set(policies.flatMap((p) => p.requires))];
  if (names.length === 0) return;
  await prepareStrategies(buildSteps(parseCompactConfig({ strategies: names, tokenizer: tokenizer.name })).map((s) => s.strategy));
}
