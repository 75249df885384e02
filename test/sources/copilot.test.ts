import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverInputs } from '../../src/sources/discover.js';
import { parseSourceFilters } from '../../src/sources/filters.js';
import { linuxEnvironment } from '../helpers/agent-home.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The fixtures lie as Copilot lays out its home: `COPILOT_HOME` at them is what Copilot (and ccusage) would read. */
const COPILOT_HOME = join(import.meta.dirname, '..', 'fixtures', 'copilot');

describe('GitHub Copilot CLI sessions where Copilot writes them', () => {
  it('finds the three layouts under COPILOT_HOME, and stats --agent copilot reads them as copilot', async () => {
    const environment = linuxEnvironment(tempDir('copilot-home'), { COPILOT_HOME });
    const { found, inputs } = await discoverInputs({ ...environment, filters: parseSourceFilters({ agent: ['copilot'] }) });
    expect(found.map((s) => `${s.kind} ${s.folder.slice(COPILOT_HOME.length)} ${s.sessions} ${s.origin} ${s.firstFrom}`)).toEqual([
      'sessions /session-state 3 COPILOT_HOME session',
      'archived sessions /history-session-state 1 COPILOT_HOME session',
    ]);
    expect(inputs.map((f) => f.slice(COPILOT_HOME.length))).toEqual(
      expect.arrayContaining(['/session-state/9a7e41d2-5c3b-4f60-8d19-6e2b0c4f7a38/events.jsonl', '/session-state/c51d7e08-2f4a-4b93-a6e0-7b8c9d0e1f23.jsonl']),
    );
    const r = await runMain(['stats', '--json', '--agent', 'copilot'], { environment });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { errors: number; transcripts: { file: string; format?: string }[] };
    expect([out.errors, out.transcripts.length]).toEqual([0, 4]);
    expect(r.stderr).toMatch(/^ {2}copilot +3 sessions/m);
  });
});
