import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverInputs } from '../../src/sources/discover.js';
import { parseSourceFilters } from '../../src/sources/filters.js';
import { linuxEnvironment } from '../helpers/agent-home.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'kimi-code');

describe("discovery of Kimi Code's sessions", () => {
  it('finds each session under ~/.kimi-code (or KIMI_CODE_HOME) as kimi, its main agent first, then its subagents', async () => {
    const home = tempDir('kimi-code-home'); // removed when the test ends
    cpSync(FIXTURE, join(home, '.kimi-code'), { recursive: true });
    const filters = parseSourceFilters({ agent: ['kimi'] });
    const { found, inputs } = await discoverInputs({ ...linuxEnvironment(home), filters });
    expect(found.map((s) => `${s.agent} ${s.format} ${s.folder.slice(home.length)} ${s.sessions} ${s.first?.slice(0, 10)}`)).toEqual([
      'kimi kimi-code /.kimi-code/sessions 3 2026-05-20',
    ]);
    const session = join('wd_todo-cli_b75bda135092', '5b0e7c1a-2d3f-4a6b-8c9d-0e1f2a3b4c5d', 'agents');
    expect(inputs.filter((f) => f.includes(session)).map((f) => f.slice(f.indexOf(session) + session.length + 1))).toEqual([
      join('main', 'wire.jsonl'),
      join('agent-0', 'wire.jsonl'),
    ]);
    expect(inputs).toHaveLength(4);

    const moved = tempDir('kimi-code-moved');
    cpSync(FIXTURE, moved, { recursive: true });
    const viaEnv = await discoverInputs({ ...linuxEnvironment(tempDir('empty-home'), { KIMI_CODE_HOME: moved }), filters });
    expect(viaEnv.found.map((s) => `${s.folder} ${s.origin} ${s.sessions}`)).toEqual([`${join(moved, 'sessions')} KIMI_CODE_HOME 3`]);
  });

  it('matches --project against the work directory its state.json names', async () => {
    const home = tempDir('kimi-code-home');
    cpSync(FIXTURE, join(home, '.kimi-code'), { recursive: true });
    const filters = parseSourceFilters({ agent: ['kimi'], project: 'todo-cli' });
    expect((await discoverInputs({ ...linuxEnvironment(home), filters })).inputs).toHaveLength(4);
  });
});
