import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { outputDigest, tempDir, writeRealArchive } from '../pipeline/helpers.js';

/**
 * `checkpoint` alone at its default budget, on real transcripts: the same bytes whatever the worker count. `auto`'s
 * determinism test does not reach the checkpoint (its transcripts are at most 100 KB, and auto summarizes only above
 * half the window), so this one runs the strategy on every transcript and checks that it did replace spans.
 */
const dir = tempDir('checkpoint-determinism');
const archive = join(dir, 'real.jsonl');
const config = parseCompactConfig({ strategies: ['checkpoint'] });

function checkpoints(out: string): number {
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { strategies: { name: string; details: Record<string, number> }[] };
  return report.strategies.find((s) => s.name === 'checkpoint')?.details.checkpoints ?? 0;
}

beforeAll(async () => {
  await writeRealArchive(archive, { count: 120, maxLineBytes: 100_000 });
});

describe('checkpoint at its default budget, 1, 2 and 8 workers', { timeout: 300_000 }, () => {
  it('writes byte-identical transcripts, refs and report for the bundled real transcripts', async () => {
    const digests = [];
    for (const workers of [1, 2, 8]) {
      const out = join(dir, `archive-w${workers}`);
      const outcome = await runPipeline({ inputs: [archive], outDir: out, config, workers, shardBytes: 32 * 1024 });
      expect(outcome.status).toBe('done');
      expect(checkpoints(out)).toBeGreaterThan(10);
      digests.push(outputDigest(out));
    }
    expect(digests[1]).toEqual(digests[0]);
    expect(digests[2]).toEqual(digests[0]);
  });

  it.skipIf(!hasCorpus('checkpoint determinism on spotter'))(
    "writes byte-identical output for spotter's sessions read through the Claude Code reader, in this thread or on 2 workers",
    async () => {
      const digests = [];
      for (const run of [{ inProcess: true }, { workers: 2 }]) {
        const out = tempDir('checkpoint-determinism');
        const outcome = await runPipeline({
          inputs: [corpusPath('spotter', 'files')],
          outDir: out,
          config,
          shardBytes: 256 * 1024,
          maxItemsPerShard: 2,
          ...run,
        });
        expect(outcome.status).toBe('done');
        expect(checkpoints(out)).toBeGreaterThan(5);
        digests.push(outputDigest(out));
      }
      expect(digests[1]).toEqual(digests[0]);
    },
  );
});
