import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/sink/run-report.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { readRefFile } from '../../src/refs/ref-file.js';
import { restoreTranscript } from '../../src/refs/restore.js';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED, CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const exec = promisify(execFile);

/** The built CLI in `cwd`: the tests of the exit codes, the paths as given and the errors file. */
async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

/**
 * The tests of what the process does (its exit codes, the paths as given, a second process's bytes) run the built CLI;
 * the others run its entry in this process (runMain), each input and output named by its full path.
 */
describe('tcompact compact', () => {
  let dir: string;
  let runs: { traj: unknown[] }[];
  beforeAll(() => {
    dir = tempDir('compact');
    runs = (JSON.parse(readFileSync(join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json'), 'utf8')) as { traj: unknown[] }[]).slice(0, 8);
    // Eight real tau-bench runs as a canonical archive, then a broken line and a blank one.
    const lines = runs.map((r, i) => JSON.stringify({ id: `tau-${i}`, messages: r.traj }));
    writeFileSync(join(dir, 'tau.jsonl'), `${lines.join('\n')}\n{"id": "broken", "messages": [\n\n`);
    writeFileSync(join(dir, 'clean.jsonl'), `${lines.slice(0, 3).join('\n')}\n`);
  });

  it('writes the archive, side store, errors and report, and exits 1 for the broken line', async () => {
    const r = await cli(['compact', 'tau.jsonl', '--out', 'out.jsonl', '--strategy', 'strip-tool-results', '--strategy', 'mask-observations'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tau.jsonl:9: E_JSON');
    expect(r.stdout).toContain('| strip-tool-results |');

    const out = jsonLines(join(dir, 'out.jsonl'));
    expect(out.map((t) => t.id)).toEqual(runs.map((_, i) => `tau-${i}`));
    expect(jsonLines(join(dir, 'out.errors.jsonl'))).toEqual([expect.objectContaining({ file: 'tau.jsonl', line: 9, code: 'E_JSON' })]);

    const report = JSON.parse(readFileSync(join(dir, 'out.report.json'), 'utf8')) as RunReport;
    expect(report.lines).toEqual({ read: 10, ok: 8, failed: 1, skipped: 1 });
    expect(report.settings.steps).toEqual(['sanitize', 'strip-tool-results', 'mask-observations', 'sanitize']);
    expect(report.transcripts).toBe(8);
    expect(report.tokens.saved).toBeGreaterThan(0);
    expect(report.strategies.reduce((n, s) => n + s.tokensSaved, 0)).toBe(report.tokens.before - report.tokens.after);
    expect(readFileSync(join(dir, 'out.report.md'), 'utf8')).toContain('## Per strategy');

    // Every placeholder's ref is in the side store and holds the original content of that very result.
    const refs = await readRefFile(join(dir, 'out.refs.jsonl'));
    let checked = 0;
    out.forEach((t, i) => {
      const original = runs[i].traj as { role: string; content: unknown }[];
      t.messages.forEach((m: { role: string; content: unknown }, j: number) => {
        const ref = typeof m.content === 'string' ? /\(ref: ([0-9a-f]{16})\)$/.exec(m.content)?.[1] : undefined;
        if (!ref) return;
        expect(refs.get(ref)).toBe(JSON.stringify(original[j].content));
        checked++;
      });
    });
    expect(checked).toBe(report.strategies.find((s) => s.name === 'strip-tool-results')!.details.resultsStripped);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('compacts real files with the default pipeline, and restore gives back every transcript exactly', async () => {
    const inputs = [join(BUNDLED, 'claude-code', 'tool_heavy.jsonl'), join(BUNDLED, 'swe-agent', 'pydicom__pydicom-1458.traj')];
    const r = await runMain([
      'compact',
      ...inputs,
      '--out',
      join(dir, 'real.jsonl'),
      '--keep-last',
      '0',
      '--keep-messages',
      '0',
      '--keep-results',
      '0',
      '--window',
      '20000',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'real.report.json'), 'utf8')) as RunReport;
    expect(report.settings.steps[0]).toBe('sanitize');
    expect(report.lines.read).toBe(report.lines.ok + report.lines.skipped);
    expect(report.tokens.saved).toBeGreaterThan(0);
    expect(report.strategies.reduce((n, s) => n + s.tokensSaved, 0)).toBe(report.tokens.saved);

    const originals: Transcript[] = [];
    for await (const item of readInputs(inputs, { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') originals.push(item.transcript);
    const out = jsonLines(join(dir, 'real.jsonl')) as Transcript[];
    expect(out).toHaveLength(originals.length);
    const refs = await readRefFile(join(dir, 'real.refs.jsonl'));
    out.forEach((t, i) => {
      const restored = restoreTranscript(t, refs);
      expect(restored.ok && JSON.stringify(restored.value)).toBe(JSON.stringify(originals[i]));
    });
  });

  it('gives byte-identical files on a second run', async () => {
    const args = ['--strategy', 'strip-tool-results', '--keep-last', '2'];
    // The second run in another process (this one), which shares nothing with the first; none of these files names its input.
    expect((await cli(['compact', 'clean.jsonl', ...args, '--out', 'a.jsonl'], dir)).code).toBe(0);
    expect((await runMain(['compact', join(dir, 'clean.jsonl'), ...args, '--out', join(dir, 'b.jsonl')])).code).toBe(0);
    for (const suffix of ['.jsonl', '.refs.jsonl', '.errors.jsonl']) {
      expect(readFileSync(join(dir, `b${suffix}`)).equals(readFileSync(join(dir, `a${suffix}`)))).toBe(true);
    }
  });

  it('--dry-run prints the report and writes nothing', async () => {
    const r = await runMain(['compact', join(dir, 'clean.jsonl'), '--strategy', 'strip-tool-results', '--dry-run', '--out', join(dir, 'dry.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dry run: nothing written');
    expect(readdirSync(dir).filter((f) => f.startsWith('dry'))).toEqual([]);
  });

  it('--no-refs writes no side store and no refs in placeholders', async () => {
    const r = await runMain([
      'compact',
      join(dir, 'clean.jsonl'),
      '--strategy',
      'strip-tool-results',
      '--keep-messages',
      '2',
      '--keep-results',
      '0',
      '--no-refs',
      '--out',
      join(dir, 'norefs.jsonl'),
    ]);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'norefs.refs.jsonl'))).toBe(false);
    const text = readFileSync(join(dir, 'norefs.jsonl'), 'utf8');
    expect(text).toContain('[compacted] ');
    expect(text).not.toContain('(ref: ');
  });

  it('rejects a bad config file with exit 2 and the exact path, writing nothing', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ strategies: ['mask-observations'], options: { 'mask-observations': { keepResults: -1 } } }));
    const r = await cli(['compact', 'clean.jsonl', '--config', 'bad.json', '--out', 'bad.jsonl'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('tcompact compact: E_CONFIG: bad.json: options.mask-observations.keepResults: Too small: expected number to be >=0\n');
    expect(existsSync(join(dir, 'bad.jsonl'))).toBe(false);
  });

  it('takes options and tool hints from the config file', async () => {
    const config = { strategies: ['strip-tool-results'], keepLast: 0, keepMessages: 2, keepResults: 0, toolHints: { get_user_details: { response: 'keep' } } };
    writeFileSync(join(dir, 'good.json'), JSON.stringify(config));
    const r = await runMain(['compact', join(dir, 'clean.jsonl'), '--config', join(dir, 'good.json'), '--out', join(dir, 'good.jsonl')]);
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, 'good.jsonl'), 'utf8');
    expect(text).not.toContain('[compacted] get_user_details');
    expect(text).toContain('[compacted] ');
  });
});
