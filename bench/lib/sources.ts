import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceGraph } from './source-graph.js';

/** The fingerprint of the code a result was measured on; each results file records it (`sources`). */
export interface Sources {
  /** Repository-relative entry files the graph was walked from: the benchmark's module and what it runs in children. */
  entries: string[];
  /** SHA-256 over every file's path and hash and every package's name and version, in sorted order. */
  hash: string;
  /** SHA-256 of each file's text (line ends as LF, so a CRLF checkout hashes alike), by path, sorted. */
  files: Record<string, string>;
  /** Version of each package the files import by name, from package-lock.json ("unknown" when it has none). */
  packages: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The sources reached from `entries` (see {@link sourceGraph}) as they are now under `root`. */
export function measureSources(root: string, entries: readonly string[]): Sources {
  const graph = sourceGraph(root, entries);
  const files: Record<string, string> = {};
  for (const f of graph.files) files[f] = sha256(readFileSync(join(root, f), 'utf8').replaceAll('\r\n', '\n'));
  const locked = _lockedVersions(root);
  const packages: Record<string, string> = {};
  for (const p of graph.packages) packages[p] = locked[`node_modules/${p}`]?.version ?? 'unknown';
  const lines = [...Object.entries(files).map(([f, h]) => `${f}\t${h}`), ...Object.entries(packages).map(([p, v]) => `npm:${p}\t${v}`)];
  return { entries: [...entries], hash: sha256(lines.join('\n')), files, packages };
}

/** What differs from `then` to `now`: `path`, `path (new)`, `path (gone)`, `npm:name 1.0.0 -> 1.1.0`. */
export function changedSources(then: Pick<Sources, 'files' | 'packages'>, now: Pick<Sources, 'files' | 'packages'>): string[] {
  const out: string[] = [];
  for (const f of [...new Set([...Object.keys(then.files ?? {}), ...Object.keys(now.files)])].sort()) {
    const [a, b] = [then.files?.[f], now.files[f]];
    if (a === b) continue;
    out.push(a === undefined ? `${f} (new)` : b === undefined ? `${f} (gone)` : f);
  }
  for (const p of [...new Set([...Object.keys(then.packages ?? {}), ...Object.keys(now.packages)])].sort()) {
    const [a, b] = [then.packages?.[p], now.packages[p]];
    if (a !== b) out.push(`npm:${p} ${a ?? '(new)'} -> ${b ?? '(gone)'}`);
  }
  return out;
}

function _lockedVersions(root: string): Record<string, { version?: string }> {
  const lock = join(root, 'package-lock.json');
  if (!existsSync(lock)) return {};
  return (JSON.parse(readFileSync(lock, 'utf8')) as { packages?: Record<string, { version?: string }> }).packages ?? {};
}
