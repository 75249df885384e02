import { z } from 'zod';
import type { CacheRules } from './cache-rules.js';

/**
 * US dollars per million tokens. Defaults: Anthropic's list prices for Claude Sonnet 4.5 (input 3, cache write 3.75,
 * cache read 0.30, output 15), the model family of the bundled Claude Code sessions' pricing scheme. Change them with
 * `--price-in`, `--price-cache-write`, `--price-cached`, `--price-out`.
 */
export const PricesSchema = z.strictObject({
  /** Uncached input. @default 3 */
  input: z.number().nonnegative().default(3),
  /** Input written to the prompt cache (Anthropic bills it above plain input; OpenAI does not: set it to `input`). @default 3.75 */
  cacheWrite: z.number().nonnegative().default(3.75),
  /** Input read from the prompt cache. @default 0.3 */
  cached: z.number().nonnegative().default(0.3),
  /** Output. @default 15 */
  output: z.number().nonnegative().default(15),
});
export type Prices = z.output<typeof PricesSchema>;

export const DEFAULT_PRICES: Readonly<Prices> = PricesSchema.parse({});

interface TokenBill {
  /** All input tokens, cached or not. */
  input: number;
  /** Of `input`, tokens read from the cache. */
  cachedRead: number;
  /** Of `input`, tokens written to the cache; absent: all of `input` not read (the ideal cache). */
  cacheWrites?: number;
  output: number;
}

export interface Cost {
  /** Every input token at the plain input price. */
  withoutCache: number;
  /** Cache reads at the cached price, cache writes at the write price, the rest at the input price. */
  withCache: number;
}

export function costOf(bill: TokenBill, prices: Prices): Cost {
  const out = bill.output * prices.output;
  const withoutCache = (bill.input * prices.input + out) / 1e6;
  if (bill.cacheWrites === undefined) {
    return { withoutCache, withCache: (bill.cachedRead * prices.cached + (bill.input - bill.cachedRead) * prices.cacheWrite + out) / 1e6 };
  }
  const plain = bill.input - bill.cachedRead - bill.cacheWrites;
  return { withoutCache, withCache: (bill.cachedRead * prices.cached + bill.cacheWrites * prices.cacheWrite + plain * prices.input + out) / 1e6 };
}

/** Cache prices given on the command line; the others follow from the cache model. */
export interface PriceFlags {
  input: number;
  output: number;
  cacheWrite?: number;
  cached?: number;
}

/**
 * The prices of one cache model: the cache's write and read prices are the provider's multiples of the input price
 * unless given. The ideal cache keeps its fixed defaults (Sonnet 4.5's list prices), as reports before cache models had.
 */
export function pricesFor(rules: CacheRules, flags: PriceFlags): Prices {
  if (rules.kind === 'previous') {
    return {
      input: flags.input,
      cacheWrite: flags.cacheWrite ?? DEFAULT_PRICES.cacheWrite,
      cached: flags.cached ?? DEFAULT_PRICES.cached,
      output: flags.output,
    };
  }
  return {
    input: flags.input,
    cacheWrite: flags.cacheWrite ?? round6(flags.input * rules.writeMultiplier),
    cached: flags.cached ?? round6(flags.input * rules.readMultiplier),
    output: flags.output,
  };
}

/** Multiples of a price in dollars per million tokens, without float noise (3 * 0.1 is 0.30000000000000004). */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
