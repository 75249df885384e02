import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TcompactError } from '../../src/errors.js';
import { ReplayPool } from '../../src/replay/replay-pool.js';
import { type TranscriptSource, runTune } from '../../src/tune/tune-run.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const inputs = ['subagent.jsonl', 'tool_heavy.jsonl', 'short.jsonl'].map((f) => join(ROOT, 'datasets/bundled/claude-code', f));
const source: TranscriptSource = async function* () {
  for await (const item of readInputs(inputs, { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') yield item;
};

describe('replays on worker threads', () => {
  it('tune on two worker threads reports exactly what it reports replaying in this thread', async () => {
    const options = { window: 20_000, tokenizer: getTokenizer('o200k_base'), prices: { input: 3, output: 15 }, recallFloor: 0.9 };
    const inThread = await runTune(source, { ...options, outDir: tempDir('tune-thread') });
    const onPool = await runTune(source, { ...options, outDir: tempDir('tune-pool'), workers: 2 });
    expect(inThread.transcripts).toBe(3);
    expect(inThread.candidates.some((c) => c.hindsight.points > 0)).toBe(true);
    expect(JSON.stringify(onPool)).toBe(JSON.stringify(inThread));
  });

  it('hands the replays back in input order, whichever worker finishes first', async () => {
    const pool = new ReplayPool(2, { name: 'heuristic', engine: null });
    try {
      const settings = {
        policies: ['default', 'mask-10'],
        window: 20_000,
        tokenizer: { name: 'heuristic' as const, engine: null },
        prices: { input: 3, output: 15 },
      };
      const expected: string[] = [];
      const items = (async function* () {
        for (let round = 0; round < 3; round++) {
          for await (const item of source()) {
            expected.push(item.transcript.id);
            yield { transcript: item.transcript, source: { file: item.file, line: item.line } };
          }
        }
      })();
      const accepted: string[] = [];
      await pool.replayAll(settings, items, (r) => accepted.push(r.result.id));
      expect(accepted).toEqual(expected);
      expect(accepted).toHaveLength(9);
    } finally {
      await pool.destroy();
    }
  });

  it("hands a worker's error back as its code and message", async () => {
    const pool = new ReplayPool(1, { name: 'heuristic', engine: null });
    try {
      const missing = join(tempDir('replay-pool'), 'missing.json');
      const settings = {
        policies: [`anthropic:${missing}`],
        window: 20_000,
        tokenizer: { name: 'heuristic' as const, engine: null },
        prices: { input: 3, output: 15 },
      };
      const items = (async function* () {
        for await (const item of source()) yield { transcript: item.transcript, source: { file: item.file, line: item.line } };
      })();
      const failure = await pool
        .replayAll(settings, items, () => undefined)
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(TcompactError.isInstance(failure)).toBe(true);
      expect((failure as TcompactError).code).toBe('E_USAGE');
      expect((failure as TcompactError).message).toContain(`cannot read ${missing}`);
    } finally {
      await pool.destroy();
    }
  });
});
