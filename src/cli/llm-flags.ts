import { TcompactError } from '../errors.js';
import type { LlmOptionsInput } from '../llm/config.js';
import { intOption } from './command.js';

type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** The flags of the LLM steps, shared by `run`, `compact` and `eval` (parseArgs specs). */
export const LLM_FLAG_SPECS = {
  model: { type: 'string', multiple: true },
  llm: { type: 'string' },
  'llm-window': { type: 'string' },
  'llm-concurrency': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  focus: { type: 'string' },
  'price-in': { type: 'string' },
  'price-out': { type: 'string' },
  'remove-tangents': { type: 'boolean' },
} as const;

const NEEDS_MODEL = ['llm', 'llm-window', 'llm-concurrency', 'rpm', 'tpm', 'focus', 'price-in', 'price-out', 'remove-tangents'] as const;

export const LLM_FLAGS_HELP = `LLM steps (summarize, classify-tangents; off unless --model is given):
  --model NAME           the model of the LLM steps; with it, auto's summarizer is summarize
  --llm URL              OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (default: OPENAI_BASE_URL,
                         else OpenAI); key: OPENAI_API_KEY
  --llm-window N         the model's context window in tokens (default: known models' own, else 128000)
  --llm-concurrency N    requests in flight (default 4)
  --rpm N, --tpm N       requests and tokens per minute (default: no limit of our own)
  --focus TEXT           summarize's focus: added to the summary prompt
  --price-in X, --price-out X   US dollars per million prompt / completion tokens, for the cost in the report
  --remove-tangents      auto also asks the model for tangent turns of every transcript and removes them`;

/** The LLM options of each `--model` (one unless the command allows several); none without --model. */
export function llmOptionsFromFlags(command: string, values: FlagValues, { multiple = false } = {}): LlmOptionsInput[] {
  const str = (k: string) => values[k] as string | undefined;
  const models = (values.model as string[] | undefined) ?? [];
  if (models.length === 0) {
    const stray = NEEDS_MODEL.find((f) => values[f] !== undefined);
    if (stray) throw new TcompactError('E_USAGE', `${command}: --${stray} needs --model NAME (the LLM steps are off without a model)`);
    return [];
  }
  if (models.length > 1 && !multiple) throw new TcompactError('E_USAGE', `${command}: --model may be given once`);
  if (new Set(models).size !== models.length) throw new TcompactError('E_USAGE', `${command}: --model names a model twice`);
  const shared: Omit<LlmOptionsInput, 'model'> = {};
  if (str('llm') !== undefined) shared.baseURL = str('llm');
  if (str('llm-window') !== undefined) shared.contextWindow = intOption('llm-window', str('llm-window'), 0, 1);
  if (str('llm-concurrency') !== undefined) shared.llmConcurrency = intOption('llm-concurrency', str('llm-concurrency'), 4, 1, 256);
  if (str('rpm') !== undefined) shared.rpm = intOption('rpm', str('rpm'), 0, 1);
  if (str('tpm') !== undefined) shared.tpm = intOption('tpm', str('tpm'), 0, 1);
  if (str('price-in') !== undefined) shared.priceIn = price('price-in', str('price-in') as string);
  if (str('price-out') !== undefined) shared.priceOut = price('price-out', str('price-out') as string);
  return models.map((model) => ({ ...shared, model }));
}

/** What the LLM flags set in the steps' own options: `--focus` for summarize, `--remove-tangents` for auto. */
export function llmStepOptionsFromFlags(values: FlagValues): Record<string, Record<string, unknown>> | undefined {
  const options: Record<string, Record<string, unknown>> = {};
  if (values.focus !== undefined) options.summarize = { focus: values.focus };
  if (values['remove-tangents']) options.auto = { removeTangents: true };
  return Object.keys(options).length > 0 ? options : undefined;
}

function price(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new TcompactError('E_USAGE', `--${name} must be a number of US dollars per million tokens, got "${value}"`);
  return n;
}
