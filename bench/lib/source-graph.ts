import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** What a benchmark runs: the repository files reached from its entries, and the packages they import by name. */
export interface SourceGraph {
  /** Repository-relative paths with `/` separators, sorted. */
  files: string[];
  /** npm package names (`ai`, `@langchain/core`), sorted. */
  packages: string[];
}

/** Built output is measured through the sources it is built from (a bench that runs dist/ names those as entries). */
const OUTSIDE = ['node_modules', 'dist'];

/**
 * The files reached from `entries` (repository-relative) by following relative imports that run: `import ... from`,
 * `import './x.js'`, `export ... from`, and `import('./x.js')` with a literal. `import type` and `export type` are
 * skipped: they are erased and change nothing that runs. A `.js` specifier names the `.ts` file beside it, as under
 * NodeNext; a computed `import(expr)` cannot be followed, so a benchmark that loads modules that way names them as
 * entries.
 */
export function sourceGraph(root: string, entries: readonly string[]): SourceGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((e) => join(root, e));
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    const rel = _repoPath(root, path);
    if (files.has(rel)) continue;
    if (!existsSync(path)) throw new Error(`${rel}: no such file (an entry, or imported by a file of the graph)`);
    files.add(rel);
    for (const specifier of _runtimeSpecifiers(path, readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = _resolve(join(dirname(path), specifier));
        if (!OUTSIDE.includes(_repoPath(root, target).split('/')[0])) queue.push(target);
      } else if (!isBuiltin(specifier) && !isAbsolute(specifier)) {
        packages.add(_packageName(specifier));
      }
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort() };
}

function _repoPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/** `./x.js` is `./x.ts` when that exists (TypeScript sources import their siblings by the emitted name). */
function _resolve(path: string): string {
  for (const [js, source] of [
    ['.js', '.ts'],
    ['.mjs', '.mts'],
  ]) {
    if (path.endsWith(js) && existsSync(path.slice(0, -js.length) + source)) return path.slice(0, -js.length) + source;
  }
  return path;
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
function _packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Parsed once per distinct text: the check walks the same files for every results file. */
const _parsed = new Map<string, string[]>();

function _runtimeSpecifiers(path: string, text: string): string[] {
  const cached = _parsed.get(text);
  if (cached) return cached;
  const kind = /\.[mc]?ts$/.test(path) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (!node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
      return;
    }
    if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  _parsed.set(text, found);
  return found;
}
