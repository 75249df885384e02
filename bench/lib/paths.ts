import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
/** Git-ignored scratch space: generated archives (cached between runs) and pipeline outputs. */
export const TMP_DIR = join(RESULTS_DIR, 'tmp');
export const BUNDLED = join(ROOT, 'datasets', 'bundled');
/** The real public transcripts shared by the team (read-only); may be absent on other machines. */
export const SHARED_DATASETS = join(ROOT, '..', 'shared', 'datasets');
export const SPOTTER = join(SHARED_DATASETS, 'spotter', 'files', 'test', 'fixtures', 'transcripts');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
