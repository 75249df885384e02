import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../pipeline/helpers.js';

/** Every writer creates the folder of what it writes, as `run` creates its --out. */
const dir = tempDir('output-folders');

describe('output folders', () => {
  it('stats --html writes into folders that do not exist yet', async () => {
    const page = join(dir, 'new', 'deeper', 'stats.html');
    const r = await runMain(['stats', 'datasets/bundled/tau-bench', '--html', page]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`page: ${page}\n`);
    expect(readFileSync(page, 'utf8')).toMatch(/^<!doctype html>/i);
  });
});
