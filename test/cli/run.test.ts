import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { ROOT } from '../helpers/paths.js';
import { runMain } from '../helpers/cli-in-process.js';
import { accounting, readReport, realArchiveLines, runCli, tempDir } from '../pipeline/helpers.js';

/** `tcompact run` from the command line, on the bundled real dataset, the way `npm start` runs it. */
const dir = tempDir('run-cli');
const out = join(dir, 'bundled');
let result: Awaited<ReturnType<typeof runCli>>;

beforeAll(async () => {
  result = await runCli(['run', 'datasets/bundled', '--strategy', 'auto', '--out', out, '--quiet']);
});

describe('tcompact run', () => {
  it('compacts the bundled dataset offline, prints where the report is, exits 0, and is silent on stderr with --quiet', () => {
    // The built CLI was run with --quiet: nothing on stderr.
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`report: ${join(out, 'report.md')} (${join(out, 'report.json')})`);
    for (const name of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl', 'report.json', 'report.md', 'journal.jsonl'])
      expect(existsSync(join(out, name))).toBe(true);
    expect(existsSync(join(out, '.shards'))).toBe(false);
  });

  it('accounts for every input line: read = ok + skipped here, one output transcript per input transcript', async () => {
    const report = readReport(out);
    expect(report.lines.read).toBe(report.lines.ok + report.lines.failed + report.lines.skipped);
    expect(report.lines.failed).toBe(0);
    expect(report.transcripts).toBe((await realArchiveLines()).length);
    expect(accounting(out)).toMatchObject({ identity: true, transcriptsOut: report.transcripts, errorLines: 0 });
    expect(report.tokens.saved).toBeGreaterThan(0);
    expect(report.tokens).toMatchObject({ tokenizer: 'o200k_base', engine: 'tcompact' });
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/\| mask-observations \|\s+\d+ \|/);
  });

  it('writes a side store that `tcompact restore` turns back into the input transcripts, byte for byte', async () => {
    const restored = join(dir, 'restored.jsonl');
    const r = await runMain(['restore', out, '--out', restored]);
    expect(r.code).toBe(0);
    // The adapters record the input path in metadata: read it the way the CLI did, relative to the repository.
    expect(process.cwd()).toBe(ROOT);
    let expected = '';
    for await (const item of readInputs(['datasets/bundled'], { maxLineBytes: 1 << 26 }))
      if (item.kind === 'transcript') expected += `${JSON.stringify(item.transcript)}\n`;
    expect(readFileSync(restored, 'utf8')).toBe(expected);
  });

  it('counts the same with --tokenizer-engine gpt-tokenizer, names the engine in the report, and refuses an unknown one', async () => {
    // gpt-tokenizer's engine is the slow one: a Claude Code session and the SWE-agent trajectories suffice here (the
    // engines' counts are compared on every bundled transcript in test/tokens/engine-parity.test.ts).
    const inputs = ['datasets/bundled/claude-code/subagent.jsonl', 'datasets/bundled/swe-agent', '--window', '20000'];
    const own = join(dir, 'own-engine');
    const gpt = join(dir, 'gpt-engine');
    expect((await runMain(['run', ...inputs, '--strategy', 'auto', '--out', own, '--quiet'])).code).toBe(0);
    const r = await runMain(['run', ...inputs, '--strategy', 'auto', '--out', gpt, '--quiet', '--tokenizer-engine', 'gpt-tokenizer']);
    expect(r.code).toBe(0);
    const [a, b] = [readReport(own), readReport(gpt)];
    expect(a.tokens.engine).toBe('tcompact');
    expect(b.tokens.engine).toBe('gpt-tokenizer');
    expect(a.tokens.saved).toBeGreaterThan(0);
    expect({ ...b.tokens, engine: a.tokens.engine }).toEqual(a.tokens);
    expect(readFileSync(join(gpt, 'transcripts.jsonl'), 'utf8')).toBe(readFileSync(join(own, 'transcripts.jsonl'), 'utf8'));
    const bad = await runMain(['run', 'datasets/bundled/swe-agent', '--out', join(dir, 'bad-engine'), '--tokenizer-engine', 'tiktoken']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('E_CONFIG');
    expect(bad.stderr).toContain('tokenizerEngine');
  });

  it('rejects a missing --out with a usage error (exit 2) and a missing input with E_IO (exit 74)', async () => {
    const noOut = await runMain(['run', 'datasets/bundled']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--out DIR is required');
    const noInput = await runMain(['run', join(dir, 'nowhere.jsonl'), '--out', join(dir, 'x')]);
    expect(noInput.code).toBe(74);
    expect(noInput.stderr).toMatch(/E_IO: cannot read input ".*nowhere\.jsonl"/);
  });
});
