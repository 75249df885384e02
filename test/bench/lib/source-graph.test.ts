import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceGraph } from '../../../bench/lib/source-graph.js';
import { tempDir } from '../../helpers/temp-dir.js';

function tree(files: Record<string, string>): string {
  const root = tempDir('source-graph');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('sourceGraph', () => {
  it('follows static imports, re-exports and literal dynamic imports transitively, from .js specifiers to .ts files', () => {
    const root = tree({
      'bench/b.ts': "import { a } from '../src/a.js';\nexport { c } from '../src/c.js';\nawait import('./lib/d.js');\n",
      'src/a.ts': "import './side.js';\nexport const a = 1;\n",
      'src/side.ts': 'export {};\n',
      'src/c.ts': "export * from './e.js';\n",
      'src/e.ts': 'export const c = 1;\n',
      'bench/lib/d.ts': 'export {};\n',
      'src/unreached.ts': 'export {};\n',
    });
    expect(sourceGraph(root, ['bench/b.ts']).files).toEqual(['bench/b.ts', 'bench/lib/d.ts', 'src/a.ts', 'src/c.ts', 'src/e.ts', 'src/side.ts']);
  });

  it('skips type-only imports, computed imports, imports in comments and built output', () => {
    const root = tree({
      'bench/b.ts': [
        "import type { T } from '../src/types.js';",
        "export type { U } from '../src/types2.js';",
        "// import { x } from '../src/commented.js';",
        'const s = "import { y } from \'../src/quoted.js\'";',
        "const name = '../src/computed.js';",
        'await import(name);',
        "await import('../dist/src/built.js');",
        "import { z } from '../src/real.js';",
      ].join('\n'),
      'src/real.ts': 'export const z = 1;\n',
    });
    expect(sourceGraph(root, ['bench/b.ts']).files).toEqual(['bench/b.ts', 'src/real.ts']);
  });

  it('names the packages the files import, by package name, without Node built-ins', () => {
    const root = tree({
      'bench/b.ts':
        "import { a } from 'ai';\nimport { t } from '@langchain/core/messages';\nimport { c } from 'gpt-tokenizer/encoding/o200k_base';\nimport { readFileSync } from 'node:fs';\nimport { join } from 'path';\nimport type { Z } from 'zod';\n",
    });
    expect(sourceGraph(root, ['bench/b.ts']).packages).toEqual(['@langchain/core', 'ai', 'gpt-tokenizer']);
  });

  it('walks every entry, each file once', () => {
    const root = tree({
      'bench/b.ts': "import './shared.js';\n",
      'bench/run.mjs': "import './shared.js';\nimport './b.js';\n",
      'bench/shared.ts': "import './b.js';\n",
    });
    expect(sourceGraph(root, ['bench/b.ts', 'bench/run.mjs']).files).toEqual(['bench/b.ts', 'bench/run.mjs', 'bench/shared.ts']);
  });

  it('fails naming the path when an import leads to no file', () => {
    const root = tree({ 'bench/b.ts': "import './gone.js';\n" });
    expect(() => sourceGraph(root, ['bench/b.ts'])).toThrow('bench/gone.js: no such file');
  });
});
