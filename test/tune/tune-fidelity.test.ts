import { cpSync, readFileSync } from 'node:fs';
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

describe("tune replays with the archive's fallbacks, as simulate does", () => {
  it("gives a Roo Code task without its UI log the base prompt of the archive's tasks with one (test/fixtures/roo-code)", async () => {
    // Two tasks with their UI log (per-call usage), and one without (its history_item.json's task totals only).
    const roo = join(ROOT, 'test', 'fixtures', 'roo-code');
    const archive = tempDir('tune-base-fallback');
    for (const id of ['7b1e0c52-0001-4a8e-9a6b-3c5d7e9f1a2b', '7b1e0c52-0003-4a8e-9a6b-3c5d7e9f1a2b'])
      cpSync(join(roo, 'with-ui', 'tasks', id), join(archive, 'with-ui', id), { recursive: true });
    const totalsOnly = '7b1e0c52-0002-4a8e-9a6b-3c5d7e9f1a2b';
    cpSync(join(roo, 'history-only', 'tasks', totalsOnly), join(archive, 'history-only', totalsOnly), { recursive: true });
    const flags = ['--window', '60000', '--base-prompt', 'recorded', '--token-ratio', 'recorded'];
    const out = tempDir('tune-base-fallback-out');
    const tune = await runMain(['tune', archive, ...flags, '--workers', '1', '--out', out]);
    expect([tune.code, tune.stderr]).toEqual([0, '']);
    const simulated = tempDir('tune-base-fallback-simulate');
    const simulate = await runMain(['simulate', archive, ...flags, '--policy', 'none', '--out', simulated]);
    expect(simulate.code).toBe(0);
    const report = JSON.parse(readFileSync(join(simulated, 'simulate.json'), 'utf8')) as {
      fidelity: { sessions: number; input: { recorded: number; replayed: number } };
      perTranscript: { file: string; basePrompt?: number }[];
    };
    // The task without its log replays on the others' median base prompt, not on none.
    const fallback = report.perTranscript.find((t) => t.file.includes('history-only'))!;
    expect(fallback.basePrompt).toBeGreaterThan(0);
    expect(report.fidelity.sessions).toBe(3);
    expect(JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8')).fidelity).toEqual(report.fidelity);
  }, 240_000);
});
