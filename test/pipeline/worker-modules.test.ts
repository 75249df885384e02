import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** The packages the built compaction worker's entry loads, as bench/worker-costs.mjs counts them (modules by package). */
function workerPackages(): Record<string, number> {
  const out = execFileSync(process.execPath, [join(ROOT, 'bench', 'worker-costs.mjs'), 'start', '--runs', '0'], { encoding: 'utf8' });
  return (JSON.parse(out) as { byPackage: Record<string, number> }).byPackage;
}

/** The built worker entry and every file it imports statically, transitively (not those behind `await import()`). */
function staticClosure(file: string, seen = new Map<string, string>()): Map<string, string> {
  if (seen.has(file)) return seen;
  const text = readFileSync(file, 'utf8');
  seen.set(file, text);
  for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;(]*?['"](\.{1,2}\/[^'"]+)['"]/gm)) staticClosure(join(dirname(file), spec), seen);
  return seen;
}

describe("the compaction worker's start", () => {
  it('loads no secret rules: a worker loads them only for a step that scans (redact-secrets, when prepared)', () => {
    const packages = Object.keys(workerPackages());
    expect(packages).toContain('tcompact');
    expect(packages.filter((p) => p.startsWith('@secretlint/'))).toEqual([]);
    // The bundle names the modules it holds in comments: the rules and the detector are only behind an import().
    const loaded = [...staticClosure(join(ROOT, 'dist', 'workers', 'compact-worker.js')).values()].join('\n');
    expect(loaded).toContain('dist/src/strategies/redact-secrets.js');
    expect(loaded).not.toContain('secretlint-rule-preset-recommend');
    expect(loaded).not.toContain('dist/src/secrets/detector.js');
  });

  it("holds only the parts of zod that tcompact's schemas use: zod is imported as a namespace, not as its `z` object", () => {
    const loaded = [...staticClosure(join(ROOT, 'dist', 'workers', 'compact-worker.js')).values()].join('\n');
    expect(loaded).toContain('node_modules/zod/v4/classic/schemas.js');
    expect(loaded).not.toContain('node_modules/zod/v4/classic/from-json-schema.js');
  });

  it("does not import piscina's pool for the transfer of its output (the thread's piscina worker has what it needs)", () => {
    expect(Object.keys(workerPackages())).not.toContain('piscina');
  });
});
