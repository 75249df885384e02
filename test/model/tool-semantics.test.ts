import { describe, expect, it } from 'vitest';
import { normalizePath } from '../../src/model/tool-semantics.js';

/** The segment walk normalizePath is defined by, without its shortcut for paths that are normal already. */
function walked(path: string): string {
  const out: string[] = [];
  for (const seg of path.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return (path.startsWith('/') ? '/' : '') + out.join('/');
}

/** Every path of up to three segments from pieces that normalizing treats apart, with and without the slashes around. */
function paths(): string[] {
  const pieces = ['', '.', '..', '...', '.b', 'a.', 'a', 'a..b', 'c\\d', '\\'];
  const out: string[] = [];
  const grow = (prefix: string[], depth: number) => {
    if (prefix.length > 0) {
      const joined = prefix.join('/');
      out.push(joined, `/${joined}`, `${joined}/`, `/${joined}/`);
    }
    if (depth === 0) return;
    for (const p of pieces) grow([...prefix, p], depth - 1);
  };
  grow([], 3);
  return out;
}

describe('normalizePath', () => {
  it('gives what the segment walk gives, for paths normal already and paths that are not', () => {
    const all = paths();
    expect(all.length).toBeGreaterThan(4000);
    const differing = all.filter((path) => normalizePath(path) !== walked(path));
    expect(differing).toEqual([]);
  });

  it('keeps a normal path and mends the rest', () => {
    expect(normalizePath('/p/src/a.ts')).toBe('/p/src/a.ts');
    expect(normalizePath('src/.env')).toBe('src/.env');
    expect(normalizePath('/p//src/./a.ts')).toBe('/p/src/a.ts');
    expect(normalizePath('/p/lib/../src/a.ts/')).toBe('/p/src/a.ts');
    expect(normalizePath('C:\\p\\a.ts')).toBe('C:/p/a.ts');
    expect(normalizePath('../a')).toBe('../a');
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('')).toBe('');
  });
});
