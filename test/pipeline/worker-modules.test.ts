import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** The packages the built compaction worker's entry loads, as bench/worker-costs.mjs counts them (modules by package). */
function workerPackages(): Record<string, number> {
  const out = execFileSync(process.execPath, [join(ROOT, 'bench', 'worker-costs.mjs'), 'start', '--runs', '0'], { encoding: 'utf8' });
  return (JSON.parse(out) as { byPackage: Record<string, number> }).byPackage;
}

describe("the compaction worker's start", () => {
  it('loads no secret rules: a worker loads them only for a step that scans (redact-secrets, when prepared)', () => {
    const packages = Object.keys(workerPackages());
    expect(packages).toContain('tcompact');
    expect(packages.filter((p) => p.startsWith('@secretlint/'))).toEqual([]);
  });

  it("does not import piscina's pool for the transfer of its output (the thread's piscina worker has what it needs)", () => {
    expect(Object.keys(workerPackages())).not.toContain('piscina');
  });
});
