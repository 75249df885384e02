import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripsEarlierThinking } from '../../src/replay/client-thinking.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Thinking across three user turns as two Claude Code clients sent it (see the fixtures' generator): 2.0.76 left the
 * earlier turns' thinking out of every request although its model (Opus 4.5) would keep it; 2.1.22 sent it back
 * although its model's own rule (Sonnet 4.5) strips it.
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

interface Pair {
  recorded: number;
  replayed: number;
}

async function fidelityOf(name: string): Promise<{ input: Pair; cacheWrites: Pair; corrected: string[] }> {
  const out = tempDir('client-thinking');
  const run = await runMain([
    'simulate',
    join(FIXTURES, `${name}.jsonl`),
    '--policy',
    'source',
    '--base-prompt',
    'recorded',
    '--token-ratio',
    '1',
    '--out',
    out,
  ]);
  expect(run.code, run.stderr).toBe(0);
  const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
    perTranscript: { fidelity: { input: Pair; cacheWrites: Pair; corrected: string[] } }[];
  };
  return sim.perTranscript[0].fidelity;
}

const off = (p: Pair) => Math.abs(p.replayed / p.recorded - 1);

describe("earlier thinking as the client's version sent it", () => {
  it('a 2.0 client: left out at each new prompt, whatever the model', async () => {
    const f = await fidelityOf('thinking-client-2.0');
    expect(f.corrected).toContain("earlier thinking as the client's version sent it (3 calls)");
    expect(off(f.input)).toBeLessThan(0.005);
    expect(off(f.cacheWrites)).toBeLessThan(0.02);
  });

  it('a 2.1.20+ client: sent back and read from the cache, whatever the model', async () => {
    const f = await fidelityOf('thinking-client-2.1.20');
    expect(f.corrected).toContain("earlier thinking as the client's version sent it (3 calls)");
    expect(off(f.input)).toBeLessThan(0.005);
    expect(off(f.cacheWrites)).toBeLessThan(0.02);
  });
});

describe('the client-version table of earlier thinking', () => {
  const reply = (version: string) => ({ role: 'assistant' as const, content: 'ok', client_version: version });
  // Sonnet 4.5's own rule strips earlier thinking; Opus 4.5's keeps it.
  const SONNET = 'claude-sonnet-4-5-20250929';
  const OPUS = 'claude-opus-4-5-20251101';

  it('decides by version where the records agree, whatever the model', () => {
    expect(stripsEarlierThinking(reply('2.0.76'), OPUS)).toBe(true);
    expect(stripsEarlierThinking(reply('2.1.22'), SONNET)).toBe(false);
    expect(stripsEarlierThinking(reply('2.1.75'), SONNET)).toBe(false);
    expect(stripsEarlierThinking(reply('2.1.116'), SONNET)).toBe(false);
    expect(stripsEarlierThinking(reply('2.1.150'), SONNET)).toBe(false);
  });

  it("leaves the versions of the thinking-clearing bug (2.1.76 to 2.1.115) and the unchecked ones to the model's rule", () => {
    for (const version of ['2.1.76', '2.1.88', '2.1.115', '2.1.12'])
      expect([stripsEarlierThinking(reply(version), SONNET), stripsEarlierThinking(reply(version), OPUS)]).toEqual([true, false]);
  });
});
