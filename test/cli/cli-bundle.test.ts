import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED, CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The files the built CLI's main thread loads for `args`, in the order loaded (worker threads not included). */
function mainThreadModules(args: string[]): string[] {
  const dir = tempDir('tcompact-cli-modules-');
  const log = join(dir, 'modules.txt');
  const hooks = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
  const preload = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  execFileSync(process.execPath, [
    '--import',
    `data:text/javascript,${encodeURIComponent(preload)}`,
    CLI,
    ...args.map((a) => a.replace('OUT', join(dir, 'out'))),
  ]);
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((url) => url.startsWith('file:'));
}

describe("the built CLI's main thread", () => {
  it('runs from the bundle: no tcompact module but bin.js and its chunks, zod bundled, each command and reader loaded when used', () => {
    const modules = mainThreadModules([
      'run',
      join(BUNDLED, 'claude-code', 'short.jsonl'),
      '--out',
      'OUT',
      '--workers',
      '1',
      '--tokenizer',
      'heuristic',
      '--quiet',
    ]);
    const own = modules.filter((url) => !url.includes('/node_modules/'));
    expect(own.length).toBeGreaterThan(1);
    expect(own.filter((url) => !/\/dist\/src\/cli\/bin(-[^/]+)?\.js$/.test(url))).toEqual([]);
    expect(modules.filter((url) => url.includes('/node_modules/zod/'))).toEqual([]);
    // `--help` loads no command: its chunks are not `run`'s.
    const help = mainThreadModules(['--help']);
    expect(help.length).toBeLessThan(own.length / 4);
  });
});
