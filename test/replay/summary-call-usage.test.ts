import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A 2.1.88 session that compacted once, beside its compaction agent's `agent-acompact-5e1f0a.jsonl`, whose last reply
 * is the summary call: 3 uncached, 400 written and 24,300 read from the cache, 80 output (see the fixture's generator).
 */
const SESSION = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'acompact-relog', '7a1c0b2e-0000-4000-8000-000000000301.jsonl');

describe("the source's summary call, as its compaction agent recorded it", () => {
  it('is billed with the recorded usage, read from the cache, not as the whole prompt sent uncached', async () => {
    const out = tempDir('summary-call-usage');
    const run = await runMain(['simulate', SESSION, '--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', '1', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { policies: { source: { compactionCalls?: { calls: number; input: number; output: number; cost: number } } } }[];
    };
    const calls = sim.perTranscript[0].policies.source.compactionCalls;
    expect(calls).toMatchObject({ calls: 1, input: 3 + 400 + 24_300, output: 80 });
    // Mostly cache reads: well under a dollar per million input tokens (Opus 4.6 uncached input is $5, a read $0.50).
    expect((calls!.cost * 1e6) / calls!.input).toBeLessThan(1);
  });
});
