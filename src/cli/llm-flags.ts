import { TcompactError } from '../errors.js';
import type { LlmOptionsInput } from '../llm/config.js';
import { intOption } from './command.js';
import { DEFAULT_BATCH_POLL_SECONDS, MAX_BATCH_BYTES, MAX_BATCH_REQUESTS } from '../llm/config.js';

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

/** The Batch API flags (`run` only): parseArgs specs. */
export const BATCH_FLAG_SPECS = {
  batch: { type: 'boolean' },
  'batch-poll-seconds': { type: 'string' },
  'batch-cancel': { type: 'boolean' },
  'batch-max-requests': { type: 'string' },
  'batch-max-bytes': { type: 'string' },
  'price-batch-in': { type: 'string' },
  'price-batch-out': { type: 'string' },
} as const;

const NEEDS_BATCH = ['batch-poll-seconds', 'batch-cancel', 'batch-max-requests', 'batch-max-bytes'] as const;

export const BATCH_FLAGS_HELP = `Batch API (half price, answers within 24 h; needs --model):
  --batch                send the LLM requests through the Batch API (files + batches) instead of one by one;
                         what a batch does not answer is asked once more online (--rpm/--tpm apply)
  --batch-poll-seconds N seconds between two polls of a batch's status (default ${DEFAULT_BATCH_POLL_SECONDS})
  --batch-cancel         with --resume: cancel the batches still outstanding and finish with the online queue
  --batch-max-requests N, --batch-max-bytes N   split into several batches above these (default ${MAX_BATCH_REQUESTS}
                         requests, ${MAX_BATCH_BYTES} bytes: the API's limits)
  --price-batch-in X, --price-batch-out X   batch prices per million tokens (default: half of --price-in/--price-out)`;

const NEEDS_MODEL = [
  'llm',
  'llm-window',
  'llm-concurrency',
  'rpm',
  'tpm',
  'focus',
  'price-in',
  'price-out',
  'remove-tangents',
  'batch',
  'price-batch-in',
  'price-batch-out',
  ...NEEDS_BATCH,
] as const;

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
  if (str('price-batch-in') !== undefined) shared.priceBatchIn = price('price-batch-in', str('price-batch-in') as string);
  if (str('price-batch-out') !== undefined) shared.priceBatchOut = price('price-batch-out', str('price-batch-out') as string);
  const strayBatch = NEEDS_BATCH.find((f) => values[f] !== undefined);
  if (strayBatch && !values.batch) throw new TcompactError('E_USAGE', `${command}: --${strayBatch} needs --batch`);
  if (values.batch) {
    const batch: NonNullable<LlmOptionsInput['batch']> = {};
    if (str('batch-poll-seconds') !== undefined) batch.pollSeconds = positiveNumber('batch-poll-seconds', str('batch-poll-seconds') as string);
    if (str('batch-max-requests') !== undefined)
      batch.maxRequests = intOption('batch-max-requests', str('batch-max-requests'), MAX_BATCH_REQUESTS, 1, MAX_BATCH_REQUESTS);
    if (str('batch-max-bytes') !== undefined) batch.maxBytes = intOption('batch-max-bytes', str('batch-max-bytes'), MAX_BATCH_BYTES, 1024, MAX_BATCH_BYTES);
    if (values['batch-cancel']) batch.cancel = true;
    shared.batch = batch;
  }
  return models.map((model) => ({ ...shared, model }));
}

/** What the LLM flags set in the steps' own options: `--focus` for summarize, `--remove-tangents` for auto. */
export function llmStepOptionsFromFlags(values: FlagValues): Record<string, Record<string, unknown>> | undefined {
  const options: Record<string, Record<string, unknown>> = {};
  if (values.focus !== undefined) options.summarize = { focus: values.focus };
  if (values['remove-tangents']) options.auto = { removeTangents: true };
  return Object.keys(options).length > 0 ? options : undefined;
}

function positiveNumber(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new TcompactError('E_USAGE', `--${name} must be a number of seconds > 0, got "${value}"`);
  return n;
}

function price(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new TcompactError('E_USAGE', `--${name} must be a number of US dollars per million tokens, got "${value}"`);
  return n;
}
