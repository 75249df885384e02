import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The real public transcripts shared by the team (read-only). */
export const SHARED_DATASETS = join(ROOT, '..', 'shared', 'datasets');
export const BUNDLED = join(ROOT, 'datasets', 'bundled');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
