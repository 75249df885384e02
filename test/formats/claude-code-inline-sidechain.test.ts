import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isModelCall } from '../../src/model/recorded.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, transcriptsOf } from './helpers.js';

/** A Claude Code 1.0.51 session whose Task subagent is logged inline (`isSidechain: true`), between the call and its result. */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'inline-sidechain.jsonl');
const SESSION = '7a1c0b2e-0000-4000-8000-000000000105';

describe('Claude Code 1.0 sidechains logged in the session file', () => {
  it("reads the subagent's records as a transcript of their own, not as calls of the session", async () => {
    const items = await collect(readClaudeCode(FILE, READ));
    expect(errorsOf(items)).toEqual([]);
    const [main, side] = transcriptsOf(items);
    expect([main.transcript.id, side.transcript.id]).toEqual([SESSION, `${SESSION}:sidechain-1`]);
    expect(main.transcript.messages.filter(isModelCall)).toHaveLength(3);
    expect(side.transcript.messages.filter(isModelCall)).toHaveLength(2);
    expect(main.transcript.messages.some((m) => typeof m.content === 'string' && m.content.startsWith('Find where the HTTP retry limit is configured'))).toBe(
      false,
    );
    expect(side.transcript.messages[0]).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^Find where the HTTP retry limit is configured/) as string,
    });
    expect(side.transcript.metadata).toMatchObject({ isSidechain: true, parentSessionId: SESSION });
    expect(recordedUsage(main.transcript)).toMatchObject({ calls: 3, cacheCreation: 18_160, cacheRead: 36_120 });
    expect(recordedUsage(side.transcript)).toMatchObject({ calls: 2, cacheCreation: 9_060, cacheRead: 9_000 });
    expect(accountedUnits(items)).toBe(lineCount(FILE));
  });

  it("simulate replays the session's three calls against its own record, and the subagent's two apart", async () => {
    const out = tempDir('inline-sidechain');
    const result = await runMain(['simulate', FILE, '--policy', 'source', '--out', out]);
    expect(result.code).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { id: string; fidelity: { calls: { recorded: number; replayed: number } } }[];
    };
    expect(Object.fromEntries(sim.perTranscript.map((t) => [t.id, t.fidelity.calls]))).toEqual({
      [SESSION]: { recorded: 3, replayed: 3 },
      [`${SESSION}:sidechain-1`]: { recorded: 2, replayed: 2 },
    });
  });
});
