import { Worker, getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { bpeCounter, shareRankTable } from '../../src/tokens/bpe-engines.js';

const ENGINE = new URL('../../src/tokens/bpe-engines.ts', import.meta.url).href;
const TEXT = "A worker's count: 日本語, \u{1F600}, 12345 and   spaces\n\n";
/** Where a thread leaves the table it shares with the workers it starts. */
const SHARED_KEY = 'tcompact/rank-table/o200k_base';

/** Starts a worker thread that counts TEXT with tcompact's engine and says whether it used a shared table. */
function countInWorker(): Promise<{ count: number; shared: boolean }> {
  const source = `
    const { parentPort } = require('node:worker_threads');
    import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(ENGINE)}, ${JSON.stringify(import.meta.url)})).then(({ bpeCounter, usesSharedRankTable }) => {
      const count = bpeCounter('o200k_base', 'tcompact')(${JSON.stringify(TEXT)});
      parentPort.postMessage({ count, shared: usesSharedRankTable('o200k_base') });
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true });
    worker.once('message', (m: { count: number; shared: boolean }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('the rank table shared with worker threads', () => {
  it('is built once: a worker started after shareRankTable counts with it, and counts as gpt-tokenizer', { timeout: 60_000 }, async () => {
    // An earlier test in this process may have shared the table already: the first worker starts without it.
    const earlier = getEnvironmentData(SHARED_KEY);
    setEnvironmentData(SHARED_KEY, undefined);
    const before = await countInWorker().finally(() => earlier !== undefined && setEnvironmentData(SHARED_KEY, earlier));
    expect(before.shared).toBe(false);
    shareRankTable('o200k_base', 'tcompact');
    const after = await countInWorker();
    expect(after.shared).toBe(true);
    expect(after.count).toBe(bpeCounter('o200k_base', 'gpt-tokenizer')(TEXT));
    expect(before.count).toBe(after.count);
  });
});
