import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleResults } from '../../../bench/lib/fresh-results.js';
import { measureSources } from '../../../bench/lib/sources.js';
import { tempDir } from '../../helpers/temp-dir.js';

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A tree with one benchmark and its results file, written as the runner writes it. */
function measured(): { root: string; dir: string; hash: string } {
  const root = tempDir('fresh-results');
  write(root, { 'bench/b.ts': "import '../src/a.js';\n", 'src/a.ts': 'export const a = 1;\n' });
  const sources = measureSources(root, ['bench/b.ts']);
  write(root, { 'bench/results/b.json': JSON.stringify({ name: 'b', sources }) });
  return { root, dir: join(root, 'bench', 'results'), hash: sources.hash };
}

describe('staleResults', () => {
  it('reports nothing when every result was measured on the sources as they are', () => {
    const { root, dir } = measured();
    expect(staleResults(root, dir, ['b'])).toEqual([]);
  });

  it('names the stale file, both hashes and the files that changed', () => {
    const { root, dir, hash } = measured();
    write(root, { 'src/a.ts': 'export const a = 2;\n' });
    const now = measureSources(root, ['bench/b.ts']).hash;
    expect(staleResults(root, dir)).toEqual([
      `bench/results/b.json measured sources ${hash.slice(0, 12)}… ; the sources now hash ${now.slice(0, 12)}… (changed: src/a.ts)`,
    ]);
  });

  it('reports a result that names no source hash, and an expected one that is missing', () => {
    const { root, dir } = measured();
    write(root, { 'bench/results/old.json': JSON.stringify({ name: 'old' }) });
    expect(staleResults(root, dir, ['b', 'c'])).toEqual([
      'bench/results/c.json is missing',
      'bench/results/old.json names no source hash, so nothing says which code it measured',
    ]);
  });

  it('reports a result whose benchmark module is gone', () => {
    const { root, dir, hash } = measured();
    write(root, { 'bench/results/b.json': JSON.stringify({ name: 'b', sources: { entries: ['bench/removed.ts'], hash, files: {}, packages: {} } }) });
    expect(staleResults(root, dir)).toEqual([
      `bench/results/b.json measured sources ${hash.slice(0, 12)}… ; they cannot be walked now: bench/removed.ts: no such file (an entry, or imported by a file of the graph)`,
    ]);
  });
});
