import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A Claude Code 2.1.39 session that compacted once with nothing but its summary logged: each of the three calls after
 * the boundary recorded 9,000 tokens more than the summary and the messages after it (the files and announcements
 * Claude Code re-sends unlogged); see the fixture's generator.
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'compaction-unlogged-step.jsonl');

interface Fidelity {
  input: { recorded: number; replayed: number };
  unlogged: { tokens: number };
  estimated: string[];
}

async function simulate(...flags: string[]): Promise<{ fidelity: Fidelity; none: number }> {
  const out = tempDir('post-compaction-step');
  const result = await runMain(['simulate', FILE, '--policy', 'none', '--policy', 'source', '--token-ratio', '1', ...flags, '--out', out]);
  expect(result.code).toBe(0);
  const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
    perTranscript: { fidelity: Fidelity; policies: Record<string, { billedInput: number }> }[];
  };
  return { fidelity: sim.perTranscript[0].fidelity, none: sim.perTranscript[0].policies.none.billedInput };
}

describe('what Claude Code sends after a compaction that it does not log', () => {
  it('carries the first post-compaction gap of the record until the next compaction, and says it is estimated', async () => {
    const { fidelity } = await simulate('--base-prompt', 'recorded');
    expect(fidelity.estimated).toEqual(['post-compaction step (1 point, 9,000 tokens)']);
    expect(fidelity.unlogged.tokens).toBe(3 * 9_000);
    expect(fidelity.input.replayed).toBe(fidelity.input.recorded);
  });

  it('adds it only to a policy that keeps the summary, and only with the base prompt measured on the record', async () => {
    const measured = await simulate('--base-prompt', 'recorded');
    const fixed = await simulate('--base-prompt', '20000');
    expect(measured.none).toBe(fixed.none);
    expect(fixed.fidelity.estimated).toEqual([]);
    expect(fixed.fidelity.input.recorded - fixed.fidelity.input.replayed).toBeGreaterThanOrEqual(3 * 9_000);
  });
});
