import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The shared corpus of real public transcripts (spotter, session-share, tau-bench, swe-agent, openhands), from
 * TCOMPACT_CORPUS. `.ci/run` sets it to the `shared/datasets` folder beside the clone; a fresh clone has no such
 * folder, so suites that read it skip with a notice instead of failing. Set but not a folder: every such suite fails.
 */
export const CORPUS: string | undefined = process.env.TCOMPACT_CORPUS ? resolve(process.env.TCOMPACT_CORPUS) : undefined;

if (CORPUS !== undefined && !statSync(CORPUS, { throwIfNoEntry: false })?.isDirectory()) {
  throw new Error(`TCOMPACT_CORPUS=${process.env.TCOMPACT_CORPUS} is not a folder (expected the shared datasets folder, e.g. ../shared/datasets)`);
}

/** A path inside the corpus; a placeholder that never exists when the corpus is not set (tests using it are skipped). */
export function corpusPath(...parts: string[]): string {
  return join(CORPUS ?? '/TCOMPACT_CORPUS-is-not-set', ...parts);
}

const noticed = new Set<string>();

/** True when the corpus is set; otherwise prints, once per suite, a one-line notice saying how to run it. */
export function hasCorpus(suite: string): boolean {
  if (CORPUS !== undefined) return true;
  if (!noticed.has(suite)) {
    noticed.add(suite);
    console.warn(`skipped: ${suite} needs the shared corpus of real transcripts; run with TCOMPACT_CORPUS=../shared/datasets`);
  }
  return false;
}
