import type { ChatUsage } from './client.js';
import { modelInfo } from './model-info.js';

/** Prices in US dollars per million tokens, and where they came from. */
export interface Price {
  inPerMillion: number;
  outPerMillion: number;
  source: 'config' | 'gpt-tokenizer';
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

export function costOf(usage: ChatUsage, price: Price | null): number | null {
  if (!price) return null;
  return (usage.promptTokens * price.inPerMillion + usage.completionTokens * price.outPerMillion) / 1e6;
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

  constructor(
    readonly model: string,
    readonly price: Price | null,
  ) {}

  recordAnswer(usage: ChatUsage, estimated: boolean): void {
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
      costUsd: costOf(usage, this.price),
      price: this.price,
      estimated: this.estimated,
    };
  }
}
