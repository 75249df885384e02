import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { idleBefore, stripsEarlierThinking } from '../../src/replay/client-thinking.js';
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

  it('a 2.1.76-2.1.100 client: sent back until the session waited an hour, then left out of every call, whatever the model', async () => {
    // Opus 4.5's own rule keeps it: the two calls after the wait are the client's decision.
    const f = await fidelityOf('thinking-client-idle');
    expect(f.corrected).toContain("earlier thinking as the client's version sent it (2 calls)");
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

  it("leaves the unchecked versions to the model's rule", () => {
    for (const version of ['2.1.12', '1.0.51'])
      expect([stripsEarlierThinking(reply(version), SONNET), stripsEarlierThinking(reply(version), OPUS)]).toEqual([true, false]);
  });

  it('2.1.76 to 2.1.100 keeps until the first idle hour, then strips at every call (the bug)', () => {
    const before = { endsIdle: false, idledBefore: false };
    const ending = { endsIdle: true, idledBefore: true };
    const after = { endsIdle: false, idledBefore: true };
    for (const version of ['2.1.76', '2.1.88', '2.1.100'])
      for (const model of [SONNET, OPUS])
        expect([before, ending, after].map((idle) => stripsEarlierThinking(reply(version), model, idle))).toEqual([false, true, true]);
  });

  it('2.1.101 to 2.1.115 strips at the call that ends an idle hour only (the fix)', () => {
    const before = { endsIdle: false, idledBefore: false };
    const ending = { endsIdle: true, idledBefore: true };
    const after = { endsIdle: false, idledBefore: true };
    for (const version of ['2.1.101', '2.1.115'])
      for (const model of [SONNET, OPUS])
        expect([before, ending, after].map((idle) => stripsEarlierThinking(reply(version), model, idle))).toEqual([false, true, false]);
  });
});

describe('the idle spells before each reply', () => {
  const at = (role: 'user' | 'assistant', iso: string) => ({ role, content: 'x', timestamp: iso }) as Message;
  it('marks the reply whose prompt came more than an hour after the previous reply, and every reply after it', () => {
    const messages = [
      at('user', '2026-04-02T09:00:00.000Z'),
      at('assistant', '2026-04-02T09:00:05.000Z'),
      at('user', '2026-04-02T09:59:00.000Z'),
      at('assistant', '2026-04-02T09:59:05.000Z'),
      at('user', '2026-04-02T11:00:06.000Z'),
      at('assistant', '2026-04-02T11:00:10.000Z'),
      at('user', '2026-04-02T11:01:00.000Z'),
      at('assistant', '2026-04-02T11:01:05.000Z'),
    ];
    const idle = idleBefore(messages);
    expect([1, 3, 5, 7].map((i) => idle(messages[i]))).toEqual([
      { endsIdle: false, idledBefore: false },
      { endsIdle: false, idledBefore: false },
      { endsIdle: true, idledBefore: true },
      { endsIdle: false, idledBefore: true },
    ]);
  });
});
