import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, transcriptsOf } from './helpers.js';

/** A Claude Code 2.1.128 session that compacted and logged what it re-sent after the summary as `attachment` records. */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'compaction-attachments.jsonl');

describe('Claude Code attachments re-sent after a compaction (2.1.128+)', () => {
  it('reads each attachment it re-sends as a client-added message after the summary', async () => {
    const items = await collect(readClaudeCode(FILE, READ));
    expect(errorsOf(items)).toEqual([]);
    const [{ transcript }] = transcriptsOf(items);
    const summary = transcript.messages.findIndex((m) => m.is_compact_summary === true);
    const attached = transcript.messages.slice(summary + 1, summary + 6);
    expect(attached.map((m) => [m.role, m.is_meta, m.attachment])).toEqual(
      ['file', 'compact_file_reference', 'plan_file_reference', 'invoked_skills', 'deferred_tools_delta'].map((type) => ['user', true, type]),
    );
    expect(attached[0].content).toContain('     1\texport function route0(req: Request)');
    expect(attached[2].content).toContain('2. Run the route tests.');
    expect(attached[3].content).toContain('never console.log');
    expect(accountedUnits(items)).toBe(lineCount(FILE));
  });

  it('replays them as sent, so nothing after the compaction is estimated', async () => {
    const out = tempDir('attachments');
    const result = await runMain(['simulate', FILE, '--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', '1', '--out', out]);
    expect(result.code).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { fidelity: { input: { recorded: number; replayed: number }; corrected: string[]; estimated: string[] } }[];
    };
    const f = sim.perTranscript[0].fidelity;
    expect(f.estimated).toEqual([]);
    expect(f.corrected).toEqual(['5 logged attachments sent']);
    // The record holds 300 tokens more per call after the boundary: the wording around the attachments, not rendered.
    expect(f.input.recorded - f.input.replayed).toBe(2 * 300);
  });
});
