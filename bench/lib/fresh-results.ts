import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { changedSources, measureSources, type Sources } from './sources.js';

/** Changed files listed in a message; the rest are counted. */
const LISTED = 10;

const short = (hash: string) => `${hash.slice(0, 12)}…`;

/**
 * One line per results file in `dir` whose figures no longer describe the code: it names no source hash, or the
 * sources it recorded hash differently now (the line lists what changed). `expected` benchmark names without a results
 * file are reported too. Empty when every result is fresh.
 */
export function staleResults(root: string, dir: string, expected: readonly string[] = []): string[] {
  const shown = (f: string) => relative(root, join(dir, f)).split(sep).join('/');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const out = expected.filter((n) => !files.includes(`${n}.json`)).map((n) => `${shown(`${n}.json`)} is missing`);
  for (const f of files.sort()) {
    const recorded = (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { sources?: Partial<Sources> }).sources;
    if (typeof recorded?.hash !== 'string' || !Array.isArray(recorded.entries) || recorded.entries.length === 0) {
      out.push(`${shown(f)} names no source hash, so nothing says which code it measured`);
      continue;
    }
    let now: Sources;
    try {
      now = measureSources(root, recorded.entries);
    } catch (err) {
      out.push(`${shown(f)} measured sources ${short(recorded.hash)} ; they cannot be walked now: ${(err as Error).message}`);
      continue;
    }
    if (now.hash === recorded.hash) continue;
    const changed = changedSources({ files: recorded.files ?? {}, packages: recorded.packages ?? {} }, now);
    const listed = changed.length > LISTED ? [...changed.slice(0, LISTED), `and ${changed.length - LISTED} more`] : changed;
    out.push(
      `${shown(f)} measured sources ${short(recorded.hash)} ; the sources now hash ${short(now.hash)} (changed: ${listed.join(', ') || 'the hash only'})`,
    );
  }
  return out;
}
