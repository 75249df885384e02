import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedSources, measureSources } from '../../../bench/lib/sources.js';
import { tempDir } from '../../helpers/temp-dir.js';

function write(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const LOCK = JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'node_modules/ai': { version: '6.0.1' } } });

function fixture(): string {
  return write(tempDir('sources'), {
    'package-lock.json': LOCK,
    'bench/b.ts': "import { pruneMessages } from 'ai';\nimport { a } from '../src/a.js';\n",
    'src/a.ts': 'export const a = 1;\n',
    'src/other.ts': 'export const o = 1;\n',
  });
}

describe('measureSources', () => {
  it('hashes the files reached and the locked versions of the packages they import', () => {
    const s = measureSources(fixture(), ['bench/b.ts']);
    expect(Object.keys(s.files)).toEqual(['bench/b.ts', 'src/a.ts']);
    expect(s.packages).toEqual({ ai: '6.0.1' });
    expect(s.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same hash for the same sources, whatever the line ends', () => {
    const root = fixture();
    const before = measureSources(root, ['bench/b.ts']).hash;
    write(root, { 'src/a.ts': 'export const a = 1;\r\n' });
    expect(measureSources(root, ['bench/b.ts']).hash).toBe(before);
  });

  it('changes the hash when a reached file or a package version changes, not when an unreached file does', () => {
    const root = fixture();
    const before = measureSources(root, ['bench/b.ts']).hash;
    write(root, { 'src/other.ts': 'export const o = 2;\n' });
    expect(measureSources(root, ['bench/b.ts']).hash).toBe(before);
    write(root, { 'src/a.ts': 'export const a = 2;\n' });
    const edited = measureSources(root, ['bench/b.ts']).hash;
    expect(edited).not.toBe(before);
    write(root, { 'package-lock.json': LOCK.replace('6.0.1', '6.0.2') });
    expect(measureSources(root, ['bench/b.ts']).hash).not.toBe(edited);
  });
});

describe('changedSources', () => {
  it('lists changed, new and gone files and package version changes', () => {
    const then = { files: { 'src/a.ts': '1', 'src/b.ts': '2', 'src/gone.ts': '3' }, packages: { ai: '6.0.1', old: '1.0.0' } };
    const now = { files: { 'src/a.ts': '1', 'src/b.ts': '9', 'src/new.ts': '4' }, packages: { ai: '6.0.2' } };
    expect(changedSources(then, now)).toEqual(['src/b.ts', 'src/gone.ts (gone)', 'src/new.ts (new)', 'npm:ai 6.0.1 -> 6.0.2', 'npm:old 1.0.0 -> (gone)']);
  });
});
