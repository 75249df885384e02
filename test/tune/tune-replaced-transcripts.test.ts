import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TuneReport } from '../../src/tune/tune-run.js';
import { runMain } from '../helpers/cli-in-process.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A session that compacted once and its compaction agent's file (test/fixtures/claude-code/SOURCE.md, acompact-relog):
 * `optimal` and `optimal@R` do not make the source's compaction, so their totals leave the agent's file out.
 */
const FOLDER = join(ROOT, 'test', 'fixtures', 'claude-code', 'acompact-relog');

describe("tune's recall frontier over an archive that holds a compaction agent's file", () => {
  it('counts the same transcripts in the blind optimal row as in the optimal@R rows: those their totals bill', async () => {
    const out = tempDir('tune-replaced');
    const run = await runMain(['tune', FOLDER, '--window', '20000', '--tokenizer', 'heuristic', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const report = JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8')) as TuneReport;
    expect(report.transcripts).toBe(2);
    expect(report.frontier.map((r) => r.floor)).toEqual([0, 0.8, 0.9, 0.95, 0.99]);
    expect(report.frontier.map((r) => r.transcripts)).toEqual([1, 1, 1, 1, 1]);
    expect(report.frontier[0].feasible).toBe(1);
  });
});
