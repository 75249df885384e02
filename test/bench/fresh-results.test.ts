import { join } from 'node:path';
import { expect, it } from 'vitest';
import { staleResults } from '../../bench/lib/fresh-results.js';
import { ROOT } from '../helpers/paths.js';

// The committed tables are what the docs quote: each must have been measured on the code as it is. No skip: a stale
// result fails here until it is measured again (`npm run bench -- --only NAME` on a quiet machine, then commit).
it('every committed benchmark result was measured on the sources as they are now', () => {
  const stale = staleResults(ROOT, join(ROOT, 'bench', 'results'));
  expect(stale, `stale results; refresh each with \`npm run bench -- --only NAME\` and commit:\n${stale.join('\n')}\n`).toEqual([]);
});
