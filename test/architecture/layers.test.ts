import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/**
 * The layers of src/, lowest first (README, "Architecture"): a module may import from its own layer and the ones
 * below, never from one above, and no import circle exists between files. Inside pipeline/, the shard format, the job,
 * the plan, the store and the worker side never import the sink or the executors, which run on the main thread.
 * Inside replay/, the billing vocabulary never imports the policies, and neither imports the engine around them.
 * The runtimes' adapters (adapters/) are subpath exports with optional peer dependencies: nothing else imports them or
 * a runtime, so the core loads without any runtime installed.
 */
const LAYERS = [
  'errors.ts',
  'on-first-use.ts',
  'io',
  'sqlite',
  'secrets',
  'model',
  'tokens',
  'provider',
  'refs',
  'formats',
  'sources',
  'llm',
  'strategies',
  'report',
  'pipeline',
  'worker-process',
  'context',
  'adapters',
  'retention',
  'replay',
  'tune',
  'view',
  'cli',
  'index.ts',
];
const PIPELINE_LAYERS = ['shard', 'job', 'plan', 'store', 'worker', 'sink', 'executors', 'run-options.ts', 'run-pipeline.ts'];
/** Inside replay/: billing, then policies, then every other file of the folder (the engine). */
const REPLAY_LAYERS = ['billing', 'policies'];
const SRC = join(ROOT, 'src');

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative imports and re-exports of a file, `import type` included (a type-level circle is a circle), resolved to .ts paths. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+[^'";]*?from\s+'(\.[^']+)'/gm)) {
    out.push(resolve(dirname(file), m[1]).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** Position of a src/ path in LAYERS (and inside pipeline/ and replay/, in their own layers); -1 when unknown. */
function rank(path: string): [number, number] {
  const parts = relative(SRC, path).split('/');
  if (parts[0] === 'pipeline') return [LAYERS.indexOf(parts[0]), PIPELINE_LAYERS.indexOf(parts[1])];
  if (parts[0] === 'replay') {
    const sub = REPLAY_LAYERS.indexOf(parts[1]);
    return [LAYERS.indexOf(parts[0]), sub < 0 ? REPLAY_LAYERS.length : sub];
  }
  return [LAYERS.indexOf(parts[0]), 0];
}

function upwardImports(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const [layer, sub] = rank(file);
    for (const target of targets) {
      const [targetLayer, targetSub] = rank(target);
      if (targetLayer > layer || (targetLayer === layer && targetSub > sub)) {
        out.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
  }
  return out;
}

/** The runtimes the adapters serve: optional peer dependencies, imported by adapters/ alone. */
const RUNTIME_PACKAGES = /^(ai|ai\/.*|langchain|langchain\/.*|@langchain\/.*|@anthropic-ai\/sdk|@anthropic-ai\/sdk\/.*)$/;

/** Package imports (type-only too) of a file that name a runtime. */
function runtimeImportsOf(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\s+[^'";]*?from\s+'([^'.][^']*)'/gm)].map((m) => m[1]).filter((name) => RUNTIME_PACKAGES.test(name));
}

/** Files outside adapters/ that import an adapter or a runtime. */
function coreIntoAdapters(files: readonly string[], textOf = (f: string) => readFileSync(f, 'utf8')): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (relative(SRC, file).startsWith('adapters/')) continue;
    const text = textOf(file);
    for (const target of importsOf(file, text))
      if (relative(SRC, target).startsWith('adapters/')) out.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    for (const name of runtimeImportsOf(text)) out.push(`${relative(SRC, file)} -> ${name}`);
  }
  return out;
}

function importCycles(graph: Graph): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

describe('module layers', () => {
  const files = sourceFiles(SRC);

  it('places every file of src/ in a known layer', () => {
    expect(files.filter((f) => rank(f).includes(-1)).map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('has no import from a layer above', () => {
    expect(upwardImports(new Map(files.map((f) => [f, importsOf(f)])))).toEqual([]);
  });

  it('has no import circle between files', () => {
    expect(importCycles(new Map(files.map((f) => [f, importsOf(f)])))).toEqual([]);
  });

  it('keeps the adapters and their runtimes out of everything else', () => {
    expect(coreIntoAdapters(files)).toEqual([]);
  });

  it('catches a core file that imports an adapter or a runtime, type-only too', () => {
    const file = join(SRC, 'context/a.ts');
    const texts: Record<string, string> = {
      [file]: "import { tcompactPrepareStep } from '../adapters/ai-sdk/prepare-step.js';\nimport type { ModelMessage } from 'ai';\nimport { z } from 'zod';\n",
      [join(SRC, 'adapters/ai-sdk/b.ts')]: "import type { ModelMessage } from 'ai';\n",
    };
    expect(coreIntoAdapters(Object.keys(texts), (f) => texts[f])).toEqual(['context/a.ts -> adapters/ai-sdk/prepare-step.ts', 'context/a.ts -> ai']);
  });

  it('counts a type-only import or re-export as an import', () => {
    const file = join(SRC, 'context/a.ts');
    const text = "import type { B } from './b.js';\nexport type { C } from '../model/c.js';\nimport { type D, e } from './d.js';\n";
    expect(importsOf(file, text).map((f) => relative(SRC, f))).toEqual(['context/b.ts', 'model/c.ts', 'context/d.ts']);
  });

  it('catches an upward import, a worker-to-coordinator import and a circle', () => {
    const at = (p: string) => join(SRC, p);
    const graph: Graph = new Map([
      [at('model/a.ts'), [at('strategies/b.ts')]],
      [at('strategies/b.ts'), [at('model/a.ts')]],
      [at('pipeline/worker/c.ts'), [at('pipeline/executors/d.ts')]],
      [at('pipeline/executors/d.ts'), [at('pipeline/worker/c.ts')]],
      [at('replay/billing/e.ts'), [at('replay/policies/f.ts')]],
      [at('replay/policies/f.ts'), []],
    ]);
    expect(upwardImports(graph)).toEqual([
      'model/a.ts -> strategies/b.ts',
      'pipeline/worker/c.ts -> pipeline/executors/d.ts',
      'replay/billing/e.ts -> replay/policies/f.ts',
    ]);
    expect(importCycles(graph)).toEqual([
      'model/a.ts -> strategies/b.ts -> model/a.ts',
      'pipeline/worker/c.ts -> pipeline/executors/d.ts -> pipeline/worker/c.ts',
    ]);
  });
});
