import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCompactConfig } from '../../src/cli/config-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('config');
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadCompactConfig', () => {
  it('applies flags over the file and builds the steps with sanitize at both ends', async () => {
    const path = file(
      'ok.json',
      JSON.stringify({ strategies: ['mask-observations'], keepLast: 3, window: 1000, options: { 'mask-observations': { keepResults: 2 } } }),
    );
    const { config, steps } = await loadCompactConfig(path, { keepLast: 0, strategies: undefined });
    expect(config).toMatchObject({ strategies: ['mask-observations'], keepLast: 0, window: 1000, refs: true });
    expect(steps.map((s) => s.strategy.name)).toEqual(['sanitize', 'mask-observations', 'sanitize']);
    expect(steps[1].config).toMatchObject({ keepLast: 0, keepResults: 2, minBytes: 800 });
  });

  it('names the file and the exact path of every bad field', async () => {
    const path = file('bad.json', JSON.stringify({ keepLast: 'x', refs: 1, extra: true }));
    await expect(loadCompactConfig(path, {})).rejects.toThrow(
      `${path}: keepLast: Invalid input: expected number, received string; refs: Invalid input: expected boolean, received number; Unrecognized key: "extra"`,
    );
  });

  it('names the file for per-strategy option errors and unknown strategies', async () => {
    const path = file('opts.json', JSON.stringify({ strategies: ['strip-tool-results'], options: { 'strip-tool-results': { lineChars: 0 } } }));
    await expect(loadCompactConfig(path, {})).rejects.toThrow(`${path}: options.strip-tool-results.lineChars: Too small: expected number to be >=1`);
    await expect(loadCompactConfig(undefined, { strategies: ['nope'] })).rejects.toThrow(/^command line: unknown strategy "nope"/);
  });

  it('rejects unreadable, malformed and non-object files with E_CONFIG', async () => {
    await expect(loadCompactConfig(join(dir, 'missing.json'), {})).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: `${join(dir, 'missing.json')}: cannot read the config file (ENOENT)`,
    });
    await expect(loadCompactConfig(file('broken.json', '{"a":'), {})).rejects.toMatchObject({ code: 'E_CONFIG' });
    await expect(loadCompactConfig(file('array.json', '[]'), {})).rejects.toThrow('expected a JSON object at the top level');
  });
});
