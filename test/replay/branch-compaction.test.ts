import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { callThread } from '../../src/model/recorded.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from '../formats/helpers.js';

/**
 * Two branches of one Claude Code file, one of which compacts while the other's calls are logged in between (see the
 * fixture's generator): the compaction is the compacting branch's alone.
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'branches-compacting.jsonl');

describe('a compaction on one of two concurrent branches', () => {
  it("is a point before its own branch's next call, not the next call in the file", async () => {
    const [{ transcript }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
    const [point] = sourceCompactionPoints(transcript);
    const summary = transcript.messages.findIndex((m) => m.is_compact_summary === true);
    const reply = transcript.messages[point.callIndex];
    expect(callThread(reply)).toBe(callThread(transcript.messages[summary]));
    // ba3, the parser branch's tool call, not bb2's text logged before it.
    expect(JSON.stringify(reply)).toContain('toolu_ba3');
  });

  it('replays every call of both branches within 10% of its record', async () => {
    const out = tempDir('branch-compaction');
    const run = await runMain(['simulate', FILE, '--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', '1', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { fidelity: { input: { recorded: number; replayed: number }; departure?: unknown } }[];
    };
    const { fidelity } = sim.perTranscript[0];
    expect(fidelity.departure).toBeUndefined();
    expect(Math.abs(fidelity.input.replayed / fidelity.input.recorded - 1)).toBeLessThan(0.01);
  });
});
