import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

describe('the tcompact bin', () => {
  it('runs as a program, the way `npx tcompact` starts it: executable, with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { tcompact: string } };
    const r = spawnSync(join(ROOT, pkg.bin.tcompact), ['--help'], { encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/tcompact/);
    expect(r.stdout).toMatch(/\brun\b/);
  });
});
