import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/cli-in-process.js';
import { corpusPath, hasCorpus } from '../../helpers/corpus.js';
import { FIDELITY_FLAGS, replayDigest } from '../../helpers/replay-digest.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The corpus folders whose sessions record their usage (Claude Code's spotter and session-share): their replays against
 * the record are held to the figures committed beside this test, so a change to the replay's code that moves any of
 * them shows, transcript by transcript. A change meant to move them updates the files (`npx vitest run <this file> --update`,
 * with TCOMPACT_CORPUS set; `-u` before the path takes the path as its value and runs every file) and says why in its commit.
 */
const FOLDERS = ['spotter', 'session-share'];

describe.skipIf(!hasCorpus('corpus replay identity'))('the shared corpus replayed against its record', () => {
  it.each(FOLDERS)(
    '%s replays as committed',
    async (folder) => {
      const files = corpusPath(folder, 'files');
      const out = join(tempDir('corpus-replay'), 'sim');
      const run = await runMain(['simulate', files, ...FIDELITY_FLAGS, '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      const digest = replayDigest(readFileSync(join(out, 'simulate.json'), 'utf8'), files);
      await expect(`${JSON.stringify(digest, null, 2)}\n`).toMatchFileSnapshot(join('corpus-replay', `${folder}.json`));
    },
    300_000,
  );
});
