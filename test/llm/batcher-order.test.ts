import { describe, expect, it } from 'vitest';
import type { BatchApi, BatchInfo } from '../../src/llm/batch-api.js';
import { BatchJournal } from '../../src/llm/batch-journal.js';
import { Batcher } from '../../src/llm/batcher.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from './fake-clock.js';

/** A Batch API that keeps each uploaded file's custom_ids and creates batches that never run. */
function recordingApi(): { api: BatchApi; uploads: string[][] } {
  const uploads: string[][] = [];
  const info = (id: string, inputFileId: string): BatchInfo => ({
    id,
    status: 'validating',
    inputFileId,
    outputFileId: null,
    errorFileId: null,
    counts: { total: 0, completed: 0, failed: 0 },
    errors: null,
  });
  const api: BatchApi = {
    upload: async (_name, content) => {
      const lines = Buffer.from(content).toString('utf8').trim().split('\n');
      uploads.push(lines.map((l) => (JSON.parse(l) as { custom_id: string }).custom_id));
      return `file-${uploads.length}`;
    },
    create: async (inputFileId) => info(`batch-${inputFileId}`, inputFileId),
    retrieve: async (id) => info(id, ''),
    cancel: async (id) => info(id, ''),
    findByInputFile: async () => undefined,
    content: async () => '',
  };
  return { api, uploads };
}

describe('the batch files', () => {
  it('list the deferred requests in key order, whatever order the shards deferred them in, and split them there', async () => {
    const keys = ['c3', 'a1', 'e5', 'b2', 'd4'];
    const uploadsOf = async (order: readonly string[]) => {
      const { api, uploads } = recordingApi();
      const journal = await BatchJournal.open(tempDir('batcher-order'));
      const batcher = new Batcher(api, journal, {
        model: 'gpt-4o-mini',
        maxTokensParam: 'max_tokens',
        pollMs: 10,
        maxRequests: 2,
        maxBytes: 1_000_000,
        clock: new VirtualClock(),
      });
      for (const key of order) {
        batcher.defer(key, { request: { messages: [{ role: 'user', content: key }], maxTokens: 10 }, promptTokens: 1, label: key });
      }
      expect(await batcher.submit()).toBe(keys.length);
      return uploads;
    };
    const expected = [['a1', 'b2'], ['c3', 'd4'], ['e5']];
    expect(await uploadsOf(keys)).toEqual(expected);
    expect(await uploadsOf([...keys].reverse())).toEqual(expected);
  });
});
