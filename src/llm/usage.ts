import type { ChatUsage } from './client.js';
import { modelInfo } from './model-info.js';

/** Prices in US dollars per million tokens, and where they came from. */
export interface Price {
  inPerMillion: number;
  outPerMillion: number;
  source: 'config' | 'gpt-tokenizer';
  /** Batch API prices (set in batch mode): `--price-batch-in/out`, else half the prices above. */
  batch?: { inPerMillion: number; outPerMillion: number };
}

/** The Batch API costs half the list price. */
const BATCH_DISCOUNT = 0.5;

/** Adds the Batch API prices to a price: the configured ones, else half the list price. */
export function withBatchPrice(price: Price | null, batchIn?: number, batchOut?: number): Price | null {
  if (!price) return null;
  return { ...price, batch: { inPerMillion: batchIn ?? price.inPerMillion * BATCH_DISCOUNT, outPerMillion: batchOut ?? price.outPerMillion * BATCH_DISCOUNT } };
}

/** priceIn/priceOut from the config win; otherwise gpt-tokenizer's table; otherwise no price (cost is null). */
export function resolvePrice(model: string, priceIn?: number, priceOut?: number): Price | null {
  const known = modelInfo(model).price;
  if (priceIn !== undefined || priceOut !== undefined) {
    const inPerMillion = priceIn ?? known?.input;
    const outPerMillion = priceOut ?? known?.output;
    if (inPerMillion === undefined || outPerMillion === undefined) return null;
    return { inPerMillion, outPerMillion, source: 'config' };
  }
  return known ? { inPerMillion: known.input, outPerMillion: known.output, source: 'gpt-tokenizer' } : null;
}

/** The cost of `usage`, of which `batched` (included in it) was answered through the Batch API at its price. */
export function costOf(usage: ChatUsage, price: Price | null, batched?: ChatUsage): number | null {
  if (!price) return null;
  const b = batched ?? { promptTokens: 0, completionTokens: 0 };
  const batchPrice = price.batch ?? { inPerMillion: price.inPerMillion, outPerMillion: price.outPerMillion };
  return (
    ((usage.promptTokens - b.promptTokens) * price.inPerMillion +
      (usage.completionTokens - b.completionTokens) * price.outPerMillion +
      b.promptTokens * batchPrice.inPerMillion +
      b.completionTokens * batchPrice.outPerMillion) /
    1e6
  );
}

/** Usage of a run or of one transcript: what was paid (cache hits cost nothing) and what the cache saved. */
export interface LlmUsage {
  model: string;
  /** Answers received from the server (accepted or not). */
  answers: number;
  /** Answers served from the cache instead of the server. */
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Estimated US dollars; null when the model's price is unknown (set priceIn/priceOut). */
  costUsd: number | null;
  price: Price | null;
  /** Some answers came without usage from the server and were counted with our tokenizer. */
  estimated: boolean;
}

export class UsageMeter {
  private answers = 0;
  private cacheHits = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private estimated = false;
  private readonly batched: ChatUsage = { promptTokens: 0, completionTokens: 0 };

  constructor(
    readonly model: string,
    readonly price: Price | null,
  ) {}

  /** `batch`: the answer came through the Batch API (priced at the batch price). */
  recordAnswer(usage: ChatUsage, estimated: boolean, batch = false): void {
    if (batch) {
      this.batched.promptTokens += usage.promptTokens;
      this.batched.completionTokens += usage.completionTokens;
    }
    this.answers++;
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    if (estimated) this.estimated = true;
  }

  recordCacheHit(): void {
    this.cacheHits++;
  }

  add(other: LlmUsage): void {
    this.answers += other.answers;
    this.cacheHits += other.cacheHits;
    this.promptTokens += other.promptTokens;
    this.completionTokens += other.completionTokens;
    if (other.estimated) this.estimated = true;
  }

  snapshot(): LlmUsage {
    const usage = { promptTokens: this.promptTokens, completionTokens: this.completionTokens };
    return {
      model: this.model,
      answers: this.answers,
      cacheHits: this.cacheHits,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      totalTokens: this.promptTokens + this.completionTokens,
      costUsd: costOf(usage, this.price, this.batched),
      price: this.price,
      estimated: this.estimated,
    };
  }
}
