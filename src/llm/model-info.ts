import * as models from 'gpt-tokenizer/models';

/** What gpt-tokenizer's model table knows about a model; every field is absent for models it does not list. */
interface ModelInfo {
  contextWindow?: number;
  maxOutputTokens?: number;
  /** US dollars per million tokens, from the table's `price_data.main`. */
  price?: { input: number; output: number };
}

interface Spec {
  context_window?: number;
  max_output_tokens?: number;
  price_data?: { main?: { input?: number; output?: number } };
}

/**
 * Looks a model up by its exact name, then without a provider prefix (`openai/gpt-4o` -> `gpt-4o`). Local models
 * (Ollama, vLLM) are usually unknown: their window comes from `contextWindow` and their price from priceIn/priceOut.
 */
export function modelInfo(model: string): ModelInfo {
  const table = models as unknown as Record<string, Spec | undefined>;
  const spec = table[model] ?? table[model.slice(model.lastIndexOf('/') + 1)];
  if (!spec || typeof spec !== 'object') return {};
  const info: ModelInfo = {};
  if (typeof spec.context_window === 'number') info.contextWindow = spec.context_window;
  if (typeof spec.max_output_tokens === 'number') info.maxOutputTokens = spec.max_output_tokens;
  const main = spec.price_data?.main;
  if (main && typeof main.input === 'number' && typeof main.output === 'number') info.price = { input: main.input, output: main.output };
  return info;
}
