import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from '../formats/helpers.js';

/**
 * A Claude Code 2.1.3 session that cleared its two oldest tool results before its fifth call without logging it: that
 * call's recorded input falls by about 18,000 tokens and its cache read stops at the system prompt (see the fixture's
 * generator).
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'microcompact-unlogged.jsonl');

interface Fidelity {
  input: { recorded: number; replayed: number };
  corrected: string[];
}

describe("Claude Code's unlogged microcompact", () => {
  it('is read from the fall of the recorded prompt, on the call it came before', async () => {
    const [{ transcript }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
    const marked = transcript.messages.flatMap((m, i) => (m.unlogged_microcompact === true ? [i] : []));
    const replies = transcript.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
    expect(marked).toEqual([replies[4]]);
    expect(transcript.messages[replies[0]].client_version).toBe('2.1.3');
  });

  it('clears the old results in the source replay, so its prompts are the recorded ones, and the fidelity table names it', async () => {
    const out = tempDir('unlogged-microcompact');
    const run = await runMain(['simulate', FILE, '--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', '1', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { fidelity: Fidelity; policies: { source: { billedInput: number; compactions: number } } }[];
    };
    const [t] = sim.perTranscript;
    expect(t.fidelity.corrected).toEqual(['1 unlogged microcompact read from the record']);
    // Without the clearing the last two calls would each send about 18,000 tokens more than recorded.
    expect(Math.abs(t.fidelity.input.replayed / t.fidelity.input.recorded - 1)).toBeLessThan(0.01);
  });
});
