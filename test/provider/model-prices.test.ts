import { describe, expect, it } from 'vitest';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { MODEL_PRICES, findModelPrice } from '../../src/provider/model-prices.js';
import { modelPricing } from '../../src/replay/billing/cache-choice.js';

const nameOf = (model: string) => findModelPrice(model, MODEL_PRICES)?.name;

describe('findModelPrice', () => {
  it('finds a dated id under its undated name', () => {
    expect(nameOf('claude-haiku-4-5-20251001')).toBe('claude-haiku-4-5');
    expect(nameOf('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(nameOf('gpt-5-2025-08-07')).toBe('gpt-5');
    expect(nameOf('claude-3-5-haiku-latest')).toBe('claude-3-5-haiku');
  });

  it('finds an id behind a provider prefix, a Bedrock id and a Vertex version', () => {
    expect(nameOf('anthropic/claude-opus-4-6')).toBe('claude-opus-4-6');
    expect(nameOf('openai/gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(nameOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5');
    expect(nameOf('anthropic.claude-3-5-haiku-20241022-v1:0')).toBe('claude-3-5-haiku');
    expect(nameOf('claude-opus-4-1@20250805')).toBe('claude-opus-4-1');
  });

  it("reads Claude's dotted versions as dashed, and aliases as their entry", () => {
    expect(nameOf('claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(nameOf('Claude-Opus-4.6')).toBe('claude-opus-4-6');
    expect(nameOf('claude-opus-4-0')).toBe('claude-opus-4');
    // GPT's dots are part of the name: gpt-4.1 is not gpt-4-1.
    expect(nameOf('gpt-4.1-mini')).toBe('gpt-4.1-mini');
  });

  it('finds no entry for an unknown model, nor a prefix of a listed one', () => {
    expect(nameOf('my-local-llama')).toBeUndefined();
    expect(nameOf('claude-opus')).toBeUndefined();
    expect(nameOf('sonnet')).toBeUndefined();
  });
});

describe('modelPricing', () => {
  const rules = CACHE_RULES['anthropic-5m'];

  it("bills a listed model at its list prices, writes at its cache's TTL rate", () => {
    const p = modelPricing('claude-haiku-4-5-20251001', rules, { prices: {} });
    expect(p.listed).toEqual({ name: 'claude-haiku-4-5', from: 'table' });
    expect(p.rates).toEqual({ input: 1, output: 5, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 });
    expect(p.prices).toEqual({ input: 1, cacheWrite: 1.25, cached: 0.1, output: 5 });
    expect(modelPricing('claude-haiku-4-5', CACHE_RULES['anthropic-1h'], { prices: {} }).prices.cacheWrite).toBe(2);
  });

  it('bills an unknown model at the defaults, and a given flag wins over a list price', () => {
    const unknown = modelPricing('my-local-llama', rules, { prices: {} });
    expect(unknown.listed).toBeUndefined();
    expect(unknown.rates).toEqual({ input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 });
    const flagged = modelPricing('claude-opus-4-6', rules, { prices: { input: 2, cached: 0.05 } });
    // --price-in prices every kind of input by Anthropic's multiples; the output stays Opus's.
    expect(flagged.rates).toEqual({ input: 2, output: 25, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.05 });
  });

  it('takes an entry of --prices FILE over the built-in one', () => {
    const file = { 'claude-opus-4-6': { input: 4, output: 20 } };
    const p = modelPricing('claude-opus-4-6', rules, { prices: {}, modelPrices: file });
    expect(p.listed).toEqual({ name: 'claude-opus-4-6', from: 'file' });
    expect(p.rates).toEqual({ input: 4, output: 20, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.4 });
  });
});
