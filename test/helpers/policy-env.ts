import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { DEFAULT_PRICES } from '../../src/replay/billing/prices.js';
import type { PolicyEnv } from '../../src/replay/policies/policy.js';

/** A policy's environment with the replay's defaults (the ideal cache, default prices), overridden by `env`. */
export function policyEnv(env: Pick<PolicyEnv, 'tokenizer' | 'window'> & Partial<PolicyEnv>): PolicyEnv {
  return { basePrompt: 0, cooldown: 0, maxAttempts: 3, cache: CACHE_RULES.ideal, pricesAt: () => DEFAULT_PRICES, callGapSeconds: 10, ...env };
}
