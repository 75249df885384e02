import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MainResult, runMain } from '../helpers/cli-in-process.js';
import { type SecretCorpus, writeSecretCorpus } from '../helpers/secret-transcripts.js';
import { tempDir } from '../pipeline/helpers.js';

/**
 * Made-up transcripts with a planted secret of every kind in user text, tool arguments, tool results and error results,
 * as a canonical archive and a Claude Code session (test/helpers/secret-transcripts.ts). Every file each command
 * writes with its default flags, and what it prints, is searched for every planted secret: only the compacted
 * transcripts and the side store may hold one.
 */
const dir = tempDir('secrets');
const out = join(dir, 'out');
let corpus: SecretCorpus;
const printed: Record<string, MainResult> = {};

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The planted secrets a text holds, by kind. */
function leaked(text: string): string[] {
  return corpus.secrets.filter((s) => text.includes(s.value)).map((s) => s.kind);
}

beforeAll(async () => {
  corpus = writeSecretCorpus(join(dir, 'in'));
  const inputs = [corpus.archive, join(corpus.dir, 'claude-code')];
  const run = join(out, 'run');
  printed.run = await runMain(['run', ...inputs, '--out', run, '--workers', '1']);
  printed.view = await runMain(['view', run]);
  printed.eval = await runMain(['eval', ...inputs, '--out', join(out, 'eval')]);
  printed.evalCompacted = await runMain(['eval', '--compacted', run, '--out', join(out, 'eval-run')]);
  printed.viewEval = await runMain(['view', run, '--eval', join(out, 'eval-run'), '--out', join(out, 'view-eval')]);
  printed.stats = await runMain(['stats', ...inputs, '--html', join(out, 'stats', 'stats.html')]);
  printed.statsJson = await runMain(['stats', ...inputs, '--json']);
  printed.simulate = await runMain(['simulate', ...inputs, '--out', join(out, 'simulate')]);
  printed.tune = await runMain(['tune', ...inputs, '--window', '20000', '--out', join(out, 'tune')]);
}, 300_000);

describe('secrets in shared outputs', () => {
  it('every command succeeds on the planted transcripts', () => {
    for (const [name, r] of Object.entries(printed)) expect([name, r.code, r.stderr]).toEqual([name, 0, expect.any(String)]);
  });

  it('the inputs do hold every planted secret (the search below can find them)', () => {
    const text = readFileSync(corpus.archive, 'utf8') + readFileSync(corpus.session, 'utf8');
    expect(leaked(text)).toEqual(corpus.secrets.map((s) => s.kind));
  });

  it('no file written by run, view, eval, stats, simulate or tune holds one, but the compacted transcripts and the side store', () => {
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(15);
    const found = files
      .map((f) => [relative(out, f), leaked(readFileSync(f, 'utf8'))] as const)
      .filter(([, kinds]) => kinds.length > 0)
      .map(([f]) => f);
    expect(found.sort()).toEqual(['run/refs.jsonl', 'run/transcripts.jsonl']);
  });

  it('nothing a command printed holds one, and each says what it masked', () => {
    for (const [name, r] of Object.entries(printed)) expect([name, leaked(r.stdout + r.stderr)]).toEqual([name, []]);
    expect(printed.view.stdout).toMatch(/^secrets masked: \d+ \(.*github-token \d+.*\); --show-secrets shows them$/m);
  });

  it('the JSON reports count what they masked by kind', () => {
    const evalJson = JSON.parse(readFileSync(join(out, 'eval', 'eval.json'), 'utf8')) as { secretsMasked: Record<string, number> };
    expect(Object.keys(evalJson.secretsMasked).length).toBeGreaterThan(0);
    expect(JSON.parse(printed.statsJson.stdout)).toMatchObject({ secretsMasked: expect.any(Object) });
  });

  it('--show-secrets leaves them in the pages', async () => {
    const r = await runMain(['view', join(out, 'run'), '--show-secrets', '--out', join(dir, 'shown')]);
    expect(r.code).toBe(0);
    const pages = filesUnder(join(dir, 'shown')).map((f) => readFileSync(f, 'utf8'));
    expect(leaked(pages.join('')).length).toBeGreaterThan(5);
  });
});

describe('run --strategy redact-secrets --strategy auto', () => {
  it('leaves no planted secret in the compacted transcripts, and restore gives the input back byte for byte', async () => {
    const run = join(dir, 'redacted');
    const r = await runMain(['run', corpus.archive, '--strategy', 'redact-secrets', '--strategy', 'auto', '--out', run, '--quiet', '--workers', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(leaked(readFileSync(join(run, 'transcripts.jsonl'), 'utf8'))).toEqual([]);
    const report = JSON.parse(readFileSync(join(run, 'report.json'), 'utf8')) as { strategies: Record<string, { details?: Record<string, number> }> };
    expect(JSON.stringify(report)).toContain('"secret:github-token"');
    const restored = join(dir, 'restored.jsonl');
    expect((await runMain(['restore', run, '--out', restored])).code).toBe(0);
    expect(readFileSync(restored).equals(readFileSync(corpus.archive))).toBe(true);
  });
});
