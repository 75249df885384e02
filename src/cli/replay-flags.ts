import { DEFAULT_PRICES, type PriceFlags } from '../replay/billing/prices.js';
import { readPriceFile } from './price-file.js';
import { CACHE_MODEL_NAMES, parseCacheModel } from '../provider/cache-rules.js';
import { DEFAULT_WINDOW } from '../tokens/window.js';
import { integer, nonNegative, positive, recordedOr } from './flag-values.js';
import { valueFlag } from './flags.js';

/** The agent loop a replay bills: `simulate` and `tune` take these (and the input flags). */
export const REPLAY_FLAGS = {
  window: valueFlag({ valueName: 'N', description: 'context window in tokens', parse: integer(1), default: DEFAULT_WINDOW }),
  'base-prompt': valueFlag({
    valueName: 'N',
    description:
      "tokens added to every prompt for a system prompt and tools the transcripts do not record (Claude Code sessions: about the first call's recorded input); 'recorded': each transcript's own, its first recorded call's input minus the replayed first prompt, and at each call as much of it warm in the provider's cache as that call recorded reading",
    parse: recordedOr(integer(0)),
    default: 0,
  }),
  'token-ratio': valueFlag({
    valueName: 'X',
    description:
      "the provider's tokens per token of --tokenizer, applied to every count of the replay; 'recorded': each transcript's own scale, measured from its recorded usage (the growth of the recorded input between calls over the same messages counted here, on the intervals the record shows clean: a ratio per token, 1.07-1.21x o200k on Claude Code sessions, and a framing per piece of text); the archive's medians for a transcript with too few clean intervals",
    parse: recordedOr(positive),
    default: 1,
  }),
  cache: valueFlag({
    valueName: 'MODEL',
    description: `the provider's prompt cache: ${CACHE_MODEL_NAMES.join(', ')}; caches expire by the calls' recorded timestamps`,
    // Only undefined for no value, which a parser is never given.
    parse: (raw, { command }) => parseCacheModel(command, raw)!,
    shownDefault: 'by source: Claude Code anthropic-5m, Codex openai, others by their recorded model, else anthropic-5m',
  }),
  prices: valueFlag({
    valueName: 'FILE',
    description:
      'a JSON file of list prices by model, in the built-in table\'s schema ({"MODEL": {"input": X, "output": X, "cacheWrite5m": X, "cacheWrite1h": X, "cacheRead": X}}): its entries override or extend the table that prices each call by the model that answered it',
    parse: (raw) => readPriceFile(raw),
    shownDefault: 'the built-in table (Claude, GPT and Gemini list prices)',
  }),
  'price-in': valueFlag({
    valueName: 'X',
    description: 'US dollars per million uncached input tokens, for every call',
    parse: nonNegative,
    shownDefault: `each model's list price, else ${DEFAULT_PRICES.input}`,
  }),
  'price-out': valueFlag({
    valueName: 'X',
    description: 'US dollars per million output tokens, for every call',
    parse: nonNegative,
    shownDefault: `each model's list price, else ${DEFAULT_PRICES.output}`,
  }),
};

/** The --price-* flags given, as the replay takes them: each one absent leaves the price to each model's list price. */
export function priceFlags(values: { 'price-in'?: number; 'price-out'?: number; 'price-cache-write'?: number; 'price-cached'?: number }): PriceFlags {
  const given = { input: values['price-in'], output: values['price-out'], cacheWrite: values['price-cache-write'], cached: values['price-cached'] };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}
