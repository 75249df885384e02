import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runMain } from './cli-in-process.js';
import { tempDir } from './temp-dir.js';

interface SourceReplayRow {
  id: string;
  policies: { source: { calls: number; billedInput: number } };
  /** Absent when the source records its usage only as session totals (then held against them in `fidelity`). */
  recorded: { calls: number; input: number };
  /** With the base prompt measured on the record: the tokens added to every prompt. */
  basePrompt?: number;
  fidelity?: { perCall: boolean; input: { recorded: number; replayed: number; offBy: number | null }; corrected: string[]; estimated: string[] };
}

/**
 * Replays `inputs` under their agent's own compactions as the fidelity check runs it (`simulate --policy source
 * --window 200000 --base-prompt recorded --token-ratio recorded`) and gives the rows, one per transcript. `basePrompt`
 * gives the base prompt in place of the record's (for sources whose record does not show it).
 */
export async function sourceReplayRows(inputs: readonly string[], options: { basePrompt?: number } = {}): Promise<SourceReplayRow[]> {
  const out = join(tempDir('source-replay'), 'sim');
  const base = String(options.basePrompt ?? 'recorded');
  const args = ['--policy', 'source', '--window', '200000', '--base-prompt', base, '--token-ratio', 'recorded', '--out', out];
  const run = await runMain(['simulate', ...inputs, ...args]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { perTranscript: SourceReplayRow[] }).perTranscript;
}

/**
 * The source replay of `inputs` (sourceReplayRows), each transcript checked: as many calls as recorded, and billed
 * input within 5% of the recorded input. Gives the rows, for a test to count them.
 */
export async function expectSourceReplayWithin5Percent(inputs: readonly string[]): Promise<SourceReplayRow[]> {
  const rows = await sourceReplayRows(inputs);
  for (const t of rows) {
    expect(t.policies.source.calls, t.id).toBe(t.recorded.calls);
    expect(Math.abs(t.policies.source.billedInput / t.recorded.input - 1), t.id).toBeLessThan(0.05);
  }
  return rows;
}
