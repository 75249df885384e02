import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from '../formats/helpers.js';

/**
 * A Claude Code 2.1.39 session with two requests interrupted before any reply: one after an 8-minute build (the cache
 * had expired; the interrupted request wrote it again and the next call read it), one seconds after its call (the next
 * call reads beyond any recorded prompt). See the fixture's generator.
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'interrupted-requests.jsonl');

interface Side {
  recorded: number;
  replayed: number;
}

describe('a request the user interrupted before any reply', () => {
  it('is marked where the next call reads what only it could have written', async () => {
    const [{ transcript }] = transcriptsOf(await collect(readInputs([FILE], READ)));
    const marked = transcript.messages.flatMap((m, i) => (m.unrecorded_request === true ? [i] : []));
    expect(marked).toHaveLength(2);
    for (const i of marked) expect(transcript.messages[i - 1].role).toBe('tool');
  });

  it('writes the cache in the replay, so the next call reads it as the record does, and is named as estimated', async () => {
    const out = tempDir('interrupted-requests');
    const result = await runMain(['simulate', FILE, '--policy', 'source', '--token-ratio', '1', '--base-prompt', 'recorded', '--out', out]);
    expect(result.code).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: {
        fidelity: { input: Side; cacheWrites: Side; estimated: string[] };
        recorded: { input: number };
        policies: { source: { billedInput: number; calls: number } };
      }[];
    };
    const [t] = sim.perTranscript;
    expect(t.fidelity.input.replayed).toBe(t.fidelity.input.recorded);
    // Without them, the call after each rewrote what the interrupted request had written (+29% writes).
    expect(Math.abs(t.fidelity.cacheWrites.replayed - t.fidelity.cacheWrites.recorded)).toBeLessThan(t.fidelity.cacheWrites.recorded * 0.005);
    expect(t.fidelity.estimated).toEqual(["2 interrupted requests billed as the next call's cache read shows them (no usage recorded)"]);
    // Each is billed beside the record's three calls: the conversation up to its tool result.
    expect(t.policies.source.calls).toBe(3);
    expect(t.policies.source.billedInput - t.recorded.input).toBeGreaterThan(2 * 20_000);
  });
});
