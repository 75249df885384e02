import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

describe("tune's report says how far its archive's replay departs from the record", () => {
  it('in tune.json, tune.md and tune.html: the summary line simulate writes for the same archive', async () => {
    // test/fixtures/fidelity/SOURCE.md: a session of four calls with recorded usage.
    const fixture = join(ROOT, 'test', 'fixtures', 'fidelity', 'unlogged-jump.jsonl');
    const out = tempDir('tune-fidelity');
    const tune = await runMain(['tune', fixture, '--window', '60000', '--base-prompt', 'recorded', '--workers', '1', '--out', out]);
    expect([tune.code, tune.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8'));
    const simulated = tempDir('tune-fidelity-simulate');
    const simulate = await runMain(['simulate', fixture, '--window', '60000', '--base-prompt', 'recorded', '--policy', 'none', '--out', simulated]);
    expect(simulate.code).toBe(0);
    expect(json.fidelity).toEqual(JSON.parse(readFileSync(join(simulated, 'simulate.json'), 'utf8')).fidelity);
    expect(json.fidelity).toMatchObject({ policy: 'source', sessions: 1, departing: 1 });
    const line = "The 'source' replay against the record of 1 sessions: input -19.9%";
    expect(readFileSync(join(out, 'tune.md'), 'utf8')).toContain(line);
    expect(readFileSync(join(out, 'tune.html'), 'utf8')).toContain('The &#39;source&#39; replay against the record of 1 sessions: input -19.9%');
  });

  it('and says nothing of it for an archive without recorded usage', async () => {
    const out = tempDir('tune-fidelity-none');
    const tune = await runMain(['tune', join(BUNDLED, 'swe-agent'), '--window', '60000', '--workers', '1', '--out', out]);
    expect(tune.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8')).fidelity).toBeUndefined();
    expect(readFileSync(join(out, 'tune.md'), 'utf8')).not.toContain('replay against the record');
  });
});
