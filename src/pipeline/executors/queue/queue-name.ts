import { resolve } from 'node:path';
import { canonicalHash } from '../../../io/fingerprint.js';

/** Redis set in which coordinators list the queues of their unfinished runs; `tcompact worker` serves every one. */
export const RUNS_KEY = 'tcompact:runs';

/**
 * The queue of one run: named from the settings hash and the output directory, so two runs (other settings, or the same
 * settings into another DIR) never share jobs, while a resume of the same run finds its own queue again.
 */
export function queueNameFor(settingsHash: string, outDir: string): string {
  return `tcompact-${canonicalHash({ settingsHash, outDir: resolve(outDir) }).slice(0, 16)}`;
}
