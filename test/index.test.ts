import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { bundledTranscripts } from './helpers/bundled-transcripts.js';
import { ROOT } from './helpers/paths.js';

/** The curated public API: what the root export offers, that it works, and what the package ships. */
const ROOT_EXPORTS = [
  'CompactConfigSchema',
  'ContextManager',
  'ERROR_CODES',
  'PRESETS',
  'STRATEGIES',
  'TcompactError',
  'countTranscript',
  'createCompactor',
  'findViolations',
  'getTokenizer',
  'parseTranscript',
  'readInputs',
  'RefSink',
  'restoreTranscript',
  'runPipeline',
];

describe('the root API', () => {
  it('exports exactly the documented runtime names, each listed in the README', () => {
    expect(Object.keys(api).sort()).toEqual([...ROOT_EXPORTS].sort());
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const name of ROOT_EXPORTS) expect(readme).toContain(`\`${name}\``);
  });

  it('compacts a real transcript with auto through createCompactor, and restore gives the input back', async () => {
    const [big] = (await bundledTranscripts()).sort((a, b) => b.messages.length - a.messages.length);
    const compactor = api.createCompactor({ window: 16_000 });
    expect(compactor.steps[0]).toBe('sanitize');
    const result = compactor.compact(big);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(api.findViolations(result.transcript.messages)).toEqual([]);
    const back = api.restoreTranscript(result.transcript, result.refs!);
    expect(back.ok && JSON.stringify(back.value)).toBe(JSON.stringify(big));
  });

  it('refuses an LLM step without a model, and a bad option with its path', () => {
    expect(() => api.createCompactor({ strategies: ['summarize'] })).toThrow(/"summarize" needs a model/);
    expect(() => api.createCompactor({ window: -1 })).toThrow(/window: /);
  });
});

describe('the package', () => {
  it('ships the built library, the CLI and the workers, and no test-only module', () => {
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as {
      files: { path: string }[];
    }[];
    const files = pack.files.map((f) => f.path);
    for (const entry of [
      'dist/src/index.js',
      'dist/src/llm/index.js',
      'dist/src/retention/index.js',
      'dist/src/replay/index.js',
      'dist/src/tune/index.js',
      'dist/src/sources/index.js',
      'dist/src/formats/index.js',
      'dist/src/cli/bin.js',
    ]) {
      expect(files).toContain(entry);
    }
    for (const worker of ['compact-worker', 'replay-worker']) expect(files).toContain(`dist/workers/${worker}.js`);
    // The rank tables as the build saved them, so a start of the CLI reads them instead of building them.
    for (const encoding of ['o200k_base', 'cl100k_base']) expect(files).toContain(`dist/src/tokens/${encoding}.ranks`);
    expect(files.filter((f) => /(^|\/)test|fault|fixture|\.map$|\.source\.mjs$/.test(f))).toEqual([]);
  });

  it('resolves the subpaths through the package exports', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; sideEffects: boolean };
    expect(pkg.sideEffects).toBe(false);
    expect(Object.keys(pkg.exports).sort()).toEqual([
      '.',
      './ai-sdk',
      './anthropic',
      './formats',
      './langchain',
      './llm',
      './package.json',
      './replay',
      './retention',
      './sources',
      './tune',
    ]);
    const llm = await import(join(ROOT, 'dist/src/llm/index.js'));
    expect(typeof llm.createLlmSession).toBe('function');
    const formats = await import(join(ROOT, 'dist/src/formats/index.js'));
    expect(formats.FORMAT_NAMES).toContain('claude-code');
    const sources = await import(join(ROOT, 'dist/src/sources/index.js'));
    expect(typeof sources.discoverInputs).toBe('function');
  });
});
