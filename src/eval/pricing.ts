import { z } from 'zod';

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
  output: number;
}

export interface Cost {
  /** Every input token at the plain input price. */
  withoutCache: number;
  /** Cache reads at the cached price, the rest of the input as cache writes. */
  withCache: number;
}

export function costOf(bill: TokenBill, prices: Prices): Cost {
  const out = bill.output * prices.output;
  return {
    withoutCache: (bill.input * prices.input + out) / 1e6,
    withCache: (bill.cachedRead * prices.cached + (bill.input - bill.cachedRead) * prices.cacheWrite + out) / 1e6,
  };
}
