import { TcompactError } from '../errors.js';
import type { LlmOptionsInput } from '../llm/config.js';
import { DEFAULT_BATCH_POLL_SECONDS, DEFAULT_SUMMARIZER_WINDOW, MAX_BATCH_BYTES, MAX_BATCH_REQUESTS, parseLlmOptions } from '../llm/config.js';
import { dollarsPerMillion, integer, seconds, text } from './flag-values.js';
import { type FlagSection, type FlagValues, booleanFlag, listFlag, valueFlag } from './flags.js';

export const LLM_SECTION: FlagSection = { id: 'llm', heading: 'LLM steps (summarize, classify-tangents; off unless --model is given):' };
export const BATCH_SECTION: FlagSection = { id: 'batch', heading: 'Batch API (half price, answers within 24 h; needs --model):' };

/** The request limits' defaults, from the LLM options' schema. */
const LLM_DEFAULTS = parseLlmOptions({ model: 'any' });

/** The flags of the LLM steps, shared by `run`, `compact` and (some of them, worded for it) `eval` and `simulate`. */
export const LLM_FLAGS = {
  model: listFlag({
    valueName: 'NAME',
    description: "the model of the LLM steps; with it, auto's summarizer is summarize",
    parse: text,
    section: LLM_SECTION,
  }),
  llm: valueFlag({
    valueName: 'URL',
    description: 'OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1; key: OPENAI_API_KEY',
    parse: text,
    shownDefault: 'OPENAI_BASE_URL, else OpenAI',
    section: LLM_SECTION,
  }),
  'llm-window': valueFlag({
    valueName: 'N',
    description: "the model's context window in tokens",
    parse: integer(1),
    shownDefault: `known models' own, else ${DEFAULT_SUMMARIZER_WINDOW}`,
    section: LLM_SECTION,
  }),
  'llm-concurrency': valueFlag({
    valueName: 'N',
    description: 'requests in flight',
    parse: integer(1, 256),
    shownDefault: LLM_DEFAULTS.llmConcurrency,
    section: LLM_SECTION,
  }),
  rpm: valueFlag({ valueName: 'N', description: 'requests per minute', parse: integer(1), shownDefault: 'no limit of our own', section: LLM_SECTION }),
  tpm: valueFlag({ valueName: 'N', description: 'tokens per minute', parse: integer(1), shownDefault: 'no limit of our own', section: LLM_SECTION }),
  focus: valueFlag({ valueName: 'TEXT', description: "summarize's focus: added to the summary prompt", parse: text, section: LLM_SECTION }),
  'price-in': valueFlag({
    valueName: 'X',
    description: 'US dollars per million prompt tokens, for the cost in the report',
    parse: dollarsPerMillion,
    section: LLM_SECTION,
  }),
  'price-out': valueFlag({
    valueName: 'X',
    description: 'US dollars per million completion tokens, for the cost in the report',
    parse: dollarsPerMillion,
    section: LLM_SECTION,
  }),
  'remove-tangents': booleanFlag({
    description: 'auto also asks the model for tangent turns of every transcript and removes them',
    section: LLM_SECTION,
  }),
};

/** The Batch API flags (`run` and `eval`). */
export const BATCH_FLAGS = {
  batch: booleanFlag({
    description:
      'send the LLM requests through the Batch API (files + batches) instead of one by one;\nwhat a batch does not answer is asked once more online (--rpm/--tpm apply)',
    section: BATCH_SECTION,
  }),
  'batch-poll-seconds': valueFlag({
    valueName: 'N',
    description: "seconds between two polls of a batch's status",
    parse: seconds,
    shownDefault: DEFAULT_BATCH_POLL_SECONDS,
    section: BATCH_SECTION,
  }),
  'batch-cancel': booleanFlag({
    description: 'with --resume: cancel the batches still outstanding and finish with the online queue',
    section: BATCH_SECTION,
  }),
  'batch-max-requests': valueFlag({
    valueName: 'N',
    description: 'split into several batches above this many requests',
    parse: integer(1, MAX_BATCH_REQUESTS),
    shownDefault: `${MAX_BATCH_REQUESTS}, the API's limit`,
    section: BATCH_SECTION,
  }),
  'batch-max-bytes': valueFlag({
    valueName: 'N',
    description: 'split into several batches above this many bytes',
    parse: integer(1024, MAX_BATCH_BYTES),
    shownDefault: `${MAX_BATCH_BYTES}, the API's limit`,
    section: BATCH_SECTION,
  }),
  'price-batch-in': valueFlag({
    valueName: 'X',
    description: 'batch price per million prompt tokens',
    parse: dollarsPerMillion,
    shownDefault: 'half of --price-in',
    section: BATCH_SECTION,
  }),
  'price-batch-out': valueFlag({
    valueName: 'X',
    description: 'batch price per million completion tokens',
    parse: dollarsPerMillion,
    shownDefault: 'half of --price-out',
    section: BATCH_SECTION,
  }),
};

/** The LLM and batch flags a command takes: any of them, as parsed. */
export type LlmFlagValues = Partial<FlagValues<typeof LLM_FLAGS & typeof BATCH_FLAGS>>;

const NEEDS_BATCH = ['batch-poll-seconds', 'batch-cancel', 'batch-max-requests', 'batch-max-bytes'] as const;

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

function _given(value: unknown): boolean {
  return value !== undefined && value !== false;
}

/** The LLM options of each `--model` (one unless the command allows several); none without --model. */
export function llmOptionsFromFlags(command: string, values: LlmFlagValues, { multiple = false } = {}): LlmOptionsInput[] {
  const models = values.model ?? [];
  if (models.length === 0) {
    const stray = NEEDS_MODEL.find((f) => _given(values[f]));
    if (stray) throw new TcompactError('E_USAGE', `${command}: --${stray} needs --model NAME (the LLM steps are off without a model)`);
    return [];
  }
  if (models.length > 1 && !multiple) throw new TcompactError('E_USAGE', `${command}: --model may be given once`);
  if (new Set(models).size !== models.length) throw new TcompactError('E_USAGE', `${command}: --model names a model twice`);
  const shared: Omit<LlmOptionsInput, 'model'> = {};
  if (values.llm !== undefined) shared.baseURL = values.llm;
  if (values['llm-window'] !== undefined) shared.contextWindow = values['llm-window'];
  if (values['llm-concurrency'] !== undefined) shared.llmConcurrency = values['llm-concurrency'];
  if (values.rpm !== undefined) shared.rpm = values.rpm;
  if (values.tpm !== undefined) shared.tpm = values.tpm;
  if (values['price-in'] !== undefined) shared.priceIn = values['price-in'];
  if (values['price-out'] !== undefined) shared.priceOut = values['price-out'];
  if (values['price-batch-in'] !== undefined) shared.priceBatchIn = values['price-batch-in'];
  if (values['price-batch-out'] !== undefined) shared.priceBatchOut = values['price-batch-out'];
  const strayBatch = NEEDS_BATCH.find((f) => _given(values[f]));
  if (strayBatch && !values.batch) throw new TcompactError('E_USAGE', `${command}: --${strayBatch} needs --batch`);
  if (values.batch) {
    const batch: NonNullable<LlmOptionsInput['batch']> = {};
    if (values['batch-poll-seconds'] !== undefined) batch.pollSeconds = values['batch-poll-seconds'];
    if (values['batch-max-requests'] !== undefined) batch.maxRequests = values['batch-max-requests'];
    if (values['batch-max-bytes'] !== undefined) batch.maxBytes = values['batch-max-bytes'];
    if (values['batch-cancel']) batch.cancel = true;
    shared.batch = batch;
  }
  return models.map((model) => ({ ...shared, model }));
}

/** What the LLM flags set in the steps' own options: `--focus` for summarize, `--remove-tangents` for auto. */
export function llmStepOptionsFromFlags(values: Pick<LlmFlagValues, 'focus' | 'remove-tangents'>): Record<string, Record<string, unknown>> | undefined {
  const options: Record<string, Record<string, unknown>> = {};
  if (values.focus !== undefined) options.summarize = { focus: values.focus };
  if (values['remove-tangents']) options.auto = { removeTangents: true };
  return Object.keys(options).length > 0 ? options : undefined;
}
