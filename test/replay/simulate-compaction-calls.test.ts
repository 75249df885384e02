import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED } from '../helpers/paths.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Row {
  name: string;
  compactions: number;
  cost: { withoutCache: number; withCache: number };
  compactionCalls?: { calls: number; input: number; output: number; cost: number };
  atSourcePoints?: { points: number; tokensBefore: number };
}

describe("simulate bills the source's own summarizer calls", () => {
  it("one call per recorded summary put in place, as its compaction agent's file recorded it, at the prices of the model the session answered with after the point", async () => {
    const out = tempDir('sim-calls');
    const session = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
    const run = await runMain(['simulate', session, '--window', '200000', '--policy', 'source:checkpoint', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { policies: Row[] };
    const own = json.policies.find((p) => p.name === 'source') as Row;
    const ours = json.policies.find((p) => p.name === 'source:checkpoint') as Row;
    const calls = own.compactionCalls as NonNullable<Row['compactionCalls']>;
    expect(calls.calls).toBeGreaterThan(0);
    expect(calls.calls).toBe(own.atSourcePoints?.points);
    // The session's agent-acompact-946d2b.jsonl logs the summary call: 3 uncached, 121,689 written, 17,842 read (its
    // output, 8, logged mid-stream: the summary's own count instead).
    expect(calls.input).toBe(3 + 121_689 + 17_842);
    expect(calls.output).toBeGreaterThan(8);
    // Haiku answered before the compaction and Opus 4.6 after it, as in that file: Opus's list prices, $5 per million
    // uncached, $6.25 written (5 minutes), $0.50 read, $25 output.
    expect(calls.cost).toBeCloseTo((3 * 5 + 121_689 * 6.25 + 17_842 * 0.5 + calls.output * 25) / 1e6, 9);
    // A deterministic strategy asks no model: no column entry for it, none for the baseline.
    expect(ours.compactionCalls).toBeUndefined();
    expect(json.policies[0].compactionCalls).toBeUndefined();
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toContain(`- \`source\`: ${calls.calls} calls, ${calls.input.toLocaleString('en-US')} prompt`);
  });
});
