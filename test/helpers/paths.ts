import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLED = join(ROOT, 'datasets', 'bundled');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
