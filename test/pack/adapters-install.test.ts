import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The package as npm publishes it (`npm pack`), installed in an empty folder beside one runtime at a time (its current
 * major): the adapter of that runtime loads, npm says no peer warning, and tcompact alone pulls none of the runtimes
 * (they are optional peers). It installs
 * from the registry (or npm's cache), so it runs only with TCOMPACT_PACK_INSTALL=1 (`.ci/run` sets it).
 */
const ENABLED = process.env.TCOMPACT_PACK_INSTALL === '1';
if (!ENABLED) console.warn('skipped: test/pack/adapters-install.test.ts installs the packed tarball with npm; run with TCOMPACT_PACK_INSTALL=1');

const RUNTIMES = ['ai', 'langchain', '@anthropic-ai/sdk', '@langchain/core'];
const CASES = [
  { runtime: 'ai', subpath: 'tcompact/ai-sdk', api: 'tcompactPrepareStep' },
  { runtime: 'langchain', subpath: 'tcompact/langchain', api: 'tcompactMiddleware' },
  { runtime: '@anthropic-ai/sdk', subpath: 'tcompact/anthropic', api: 'tcompactAnthropic' },
];

let tarball = '';
beforeAll(() => {
  if (!ENABLED) return;
  const dir = tempDir('pack');
  // dist/ is current (test/global-setup.ts); the tarball holds it as npm would publish it.
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  tarball = join(dir, name);
}, 120_000);

/** An empty project with the tarball and these packages installed: no peer warning said (npm's `ERESOLVE` ones say `peer`). */
function install(packages: string[]): string {
  const dir = tempDir('pack-install');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', private: true, type: 'module' }));
  const run = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...packages], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`npm install ${packages.join(' ')}: exit ${run.status}: ${run.stderr}`);
  expect(run.stderr.split('\n').filter((line) => /peer/i.test(line))).toEqual([]);
  return dir;
}

const installed = (dir: string) => RUNTIMES.filter((r) => existsSync(join(dir, 'node_modules', r, 'package.json')));
const load = (dir: string, specifier: string) =>
  execFileSync('node', ['--input-type=module', '-e', `const m = await import('${specifier}'); console.log(Object.keys(m).sort().join(','))`], {
    cwd: dir,
    encoding: 'utf8',
  });

describe.runIf(ENABLED)('the packed tarball, installed beside one runtime', () => {
  it('installs alone with none of the runtimes, and its core loads', () => {
    const dir = install([]);
    expect(installed(dir)).toEqual([]);
    expect(load(dir, 'tcompact')).toContain('ContextManager');
  }, 120_000);

  it.each(CASES)(
    'with only $runtime, $subpath loads',
    ({ runtime, subpath, api }) => {
      const dir = install([runtime]);
      expect(installed(dir)).toContain(runtime);
      // LangChain's own peer, @langchain/core, comes with it.
      const allowed = runtime === 'langchain' ? ['langchain', '@langchain/core'] : [runtime];
      expect(installed(dir).filter((r) => !allowed.includes(r))).toEqual([]);
      expect(load(dir, subpath).split(',')).toContain(api);
    },
    120_000,
  );
});
