import type OpenAI from 'openai';
import { lazyClient, loadOpenAI } from './openai-sdk.js';

/** The endpoint every line of a tcompact batch calls. */
export const BATCH_ENDPOINT = '/v1/chat/completions';
const COMPLETION_WINDOW = '24h';

export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

/** What tcompact reads of a batch. */
export interface BatchInfo {
  id: string;
  status: BatchStatus;
  inputFileId: string;
  outputFileId: string | null;
  errorFileId: string | null;
  counts: { total: number; completed: number; failed: number };
  /** The batch's own errors (a batch that failed validation), joined. */
  errors: string | null;
}

/** Statuses after which a batch changes no more. */
export function isTerminal(status: BatchStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'expired' || status === 'cancelled';
}

/** The files and batches endpoints tcompact uses; every method throws the SDK's errors (the caller backs off). */
export interface BatchApi {
  upload(name: string, content: Uint8Array): Promise<string>;
  create(inputFileId: string, metadata: Record<string, string>): Promise<BatchInfo>;
  retrieve(id: string): Promise<BatchInfo>;
  cancel(id: string): Promise<BatchInfo>;
  /** The batch made from this input file, if one was created (a run killed right after creating it never journaled its id). */
  findByInputFile(inputFileId: string): Promise<BatchInfo | undefined>;
  content(fileId: string): Promise<string>;
}

interface BatchApiOptions {
  baseURL?: string;
  apiKey?: string;
  timeoutMs: number;
}

const NO_KEY = 'tcompact-no-key';

function infoOf(b: OpenAI.Batch): BatchInfo {
  const c = b.request_counts;
  return {
    id: b.id,
    status: b.status,
    inputFileId: b.input_file_id,
    outputFileId: b.output_file_id ?? null,
    errorFileId: b.error_file_id ?? null,
    counts: { total: c?.total ?? 0, completed: c?.completed ?? 0, failed: c?.failed ?? 0 },
    errors: b.errors?.data?.length ? b.errors.data.map((e) => e.message ?? e.code ?? 'unknown').join('; ') : null,
  };
}

/** The Batch API through the official SDK (files.create with purpose `batch`, batches.create/retrieve/cancel/list). */
export function createBatchApi(options: BatchApiOptions): BatchApi {
  const client = lazyClient({ apiKey: options.apiKey ?? NO_KEY, baseURL: options.baseURL, maxRetries: 2, timeout: options.timeoutMs });
  return {
    async upload(name, content) {
      const { toFile } = await loadOpenAI();
      const file = await (await client()).files.create({ file: await toFile(content, name), purpose: 'batch' });
      return file.id;
    },
    async create(inputFileId, metadata) {
      return infoOf(
        await (await client()).batches.create({ input_file_id: inputFileId, endpoint: BATCH_ENDPOINT, completion_window: COMPLETION_WINDOW, metadata }),
      );
    },
    async retrieve(id) {
      return infoOf(await (await client()).batches.retrieve(id));
    },
    async cancel(id) {
      return infoOf(await (await client()).batches.cancel(id));
    },
    async findByInputFile(inputFileId) {
      for await (const b of (await client()).batches.list({ limit: 100 })) if (b.input_file_id === inputFileId) return infoOf(b);
      return undefined;
    },
    async content(fileId) {
      return (await (await client()).files.content(fileId)).text();
    },
  };
}
