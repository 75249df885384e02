import type { LlmRunUsage, LlmSession } from '../llm/session.js';
import { type Price, withBatchPrice } from '../llm/usage.js';
import type { Prices } from './billing/prices.js';
import type { PolicyFigures } from './policies/policy.js';
import type { CompactionCalls } from './policy-run.js';

/** Per million tokens: what the policies' LLM steps are billed at. */
type CallPrice = Pick<Price, 'inPerMillion' | 'outPerMillion'>;

/**
 * The price of the LLM steps' calls: the LLM session's price for its model (configured, else gpt-tokenizer's), else
 * `fallback` (the model's rates in the replay's price table), or with `batch` the Batch API's (its prices, else the list
 * price's discount).
 */
export function compactionCallPrice(
  usage: Pick<LlmRunUsage, 'price'>,
  fallback: Pick<Prices, 'input' | 'output'>,
  batch: { in?: number; out?: number } | undefined,
): CallPrice {
  const list: Price = usage.price ?? { inPerMillion: fallback.input, outPerMillion: fallback.output, source: 'config' };
  if (!batch) return { inPerMillion: list.inPerMillion, outPerMillion: list.outPerMillion };
  return withBatchPrice(list, batch.in, batch.out)?.batch ?? list;
}

/** Counts what one replay's compactions ask of the LLM session, from before its replay to `priced()`. */
export class CompactionCallMeter {
  private readonly before: LlmRunUsage | undefined;

  constructor(
    private readonly llm: LlmSession | undefined,
    private readonly batch: { in?: number; out?: number } | undefined,
    /** The LLM steps' model's rates in the replay's price table, for a session without a price of its own. */
    private readonly llmRates: Pick<Prices, 'input' | 'output'>,
  ) {
    this.before = llm?.usage();
  }

  /**
   * The calls since the meter was made, priced, with the source's own summarizer calls (priced by the policy);
   * undefined when the compactions asked nothing.
   */
  priced(figures: PolicyFigures | undefined): CompactionCalls | undefined {
    const out: CompactionCalls = { calls: 0, input: 0, output: 0, cost: 0 };
    const own = figures?.summarizer;
    if (own && own.calls > 0) {
      out.calls += own.calls;
      out.input += own.input;
      out.output += own.output;
      out.cost += own.cost;
      if (own.loggedApart) out.loggedApart = structuredClone(own.loggedApart);
    }
    if (this.llm && this.before) {
      const after = this.llm.usage();
      const calls = after.answers - this.before.answers;
      const input = after.promptTokens - this.before.promptTokens;
      const output = after.completionTokens - this.before.completionTokens;
      if (calls > 0 || input > 0) {
        const price = compactionCallPrice(after, this.llmRates, this.batch);
        out.calls += calls;
        out.input += input;
        out.output += output;
        out.cost += (input * price.inPerMillion + output * price.outPerMillion) / 1e6;
      }
    }
    return out.calls > 0 ? out : undefined;
  }
}
