import { z } from 'zod';
import type { CacheRules } from '../../provider/cache-rules.js';

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

/** The prices a run is given: input and output, and the cache's two only where they override the cache model's multiples. */
export const PriceFlagsSchema = z.strictObject({
  /** @default 3 */
  input: z.number().nonnegative().default(DEFAULT_PRICES.input),
  /** @default 15 */
  output: z.number().nonnegative().default(DEFAULT_PRICES.output),
  /** @default the cache model's write multiple of `input` */
  cacheWrite: z.number().nonnegative().optional(),
  /** @default the cache model's read multiple of `input` */
  cached: z.number().nonnegative().optional(),
});
export type PriceFlags = z.output<typeof PriceFlagsSchema>;

/** One replay's or record's input, split as the cache billed it, and its output. */
export interface TokenBill {
  /** All input tokens, cached or not. */
  input: number;
  /** Of `input`, tokens read from the cache. */
  cachedRead: number;
  /** Of `input`, tokens written to the cache. The rest of `input` is plain input. */
  cacheWrites: number;
  output: number;
}

export interface Cost {
  /** Every input token at the plain input price. */
  withoutCache: number;
  /** Cache reads at the cached price, cache writes at the write price, the rest at the input price. */
  withCache: number;
}

/** What a bill costs in US dollars, with the cache's prices and as if every input token were plain input. */
export function costOfBill(bill: TokenBill, prices: Prices): Cost {
  const out = bill.output * prices.output;
  const plain = bill.input - bill.cachedRead - bill.cacheWrites;
  return {
    withoutCache: (bill.input * prices.input + out) / 1e6,
    withCache: (bill.cachedRead * prices.cached + bill.cacheWrites * prices.cacheWrite + plain * prices.input + out) / 1e6,
  };
}

/** The prices of one cache model: its write and read prices are its multiples of the input price unless given. */
export function pricesFor(rules: CacheRules, flags: PriceFlags): Prices {
  return {
    input: flags.input,
    cacheWrite: flags.cacheWrite ?? round6(flags.input * rules.writeMultiplier),
    cached: flags.cached ?? round6(flags.input * rules.readMultiplier),
    output: flags.output,
  };
}

/** Multiples of a price in dollars per million tokens, without float noise (3 * 0.1 is 0.30000000000000004). */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * What rewritten tokens cost above reading them, in US dollars: Anthropic's and the ideal cache write them again,
 * OpenAI's sends them as plain input.
 */
export function rewriteCostOf<K extends string>(tokens: Readonly<Record<K, number>>, rules: CacheRules, prices: Prices): Record<K, number> {
  const extra = ((rules.kind === 'prefix' ? prices.input : prices.cacheWrite) - prices.cached) / 1e6;
  return Object.fromEntries(Object.entries<number>(tokens).map(([k, n]) => [k, n * extra])) as Record<K, number>;
}
