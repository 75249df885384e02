import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverInputs } from '../../src/sources/discover.js';
import { parseSourceFilters } from '../../src/sources/filters.js';
import { linuxEnvironment } from '../helpers/agent-home.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'cline-sdk', 'data');

describe("discovery of Cline's SDK sessions", () => {
  it('finds each messages file under ~/.cline/data/sessions (or CLINE_SESSION_DATA_DIR) as cline, the session before its subagents', async () => {
    const home = tempDir('cline-sdk-home'); // removed when the test ends
    cpSync(FIXTURE, join(home, '.cline', 'data'), { recursive: true });
    const filters = parseSourceFilters({ agent: ['cline'] });
    const { found, inputs } = await discoverInputs({ ...linuxEnvironment(home), filters });
    expect(
      found.filter((s) => s.format === 'cline-sdk').map((s) => `${s.agent} ${s.folder.slice(home.length)} ${s.origin} ${s.sessions} ${s.first?.slice(0, 10)}`),
    ).toEqual(['cline /.cline/data/sessions default 4 2026-07-15']);
    expect(inputs.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual([
      '1784094124598_rruoq.messages.json',
      'explorer.messages.json',
      '1784200000000_basic.messages.json',
      '1784300000000_stale.messages.json',
    ]);

    const moved = tempDir('cline-sdk-moved');
    cpSync(join(FIXTURE, 'sessions'), moved, { recursive: true });
    const viaEnv = await discoverInputs({ ...linuxEnvironment(tempDir('empty-home'), { CLINE_SESSION_DATA_DIR: moved }), filters });
    expect(viaEnv.found.filter((s) => s.format === 'cline-sdk').map((s) => `${s.origin} ${s.sessions}`)).toEqual(['CLINE_SESSION_DATA_DIR 4']);
  });

  it('matches --project against the folder the manifest names', async () => {
    const home = tempDir('cline-sdk-home');
    cpSync(FIXTURE, join(home, '.cline', 'data'), { recursive: true });
    const inputs = async (project: string) =>
      (await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['cline'], project }) })).inputs;
    expect(await inputs('sidebar-app')).toHaveLength(4);
    expect(await inputs('another-app')).toHaveLength(0);
  });
});
