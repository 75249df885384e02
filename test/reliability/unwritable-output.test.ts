import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED } from '../helpers/paths.js';
import { CAN_MOUNT, mountTmpfs } from '../helpers/small-disk.js';
import { cliFaults, runCli, tempDir } from '../pipeline/helpers.js';

/**
 * Every command that writes, on an output it cannot write: one line naming `E_IO`, the path and the system's reason,
 * exit 74, no stack. The output folder is a read-only tmpfs where this process may mount one (root, as in CI), else
 * the fault preload's EROFS; it exists, so each command gets as far as its first file.
 */
const INPUT = join(BUNDLED, 'claude-code', 'short.jsonl');
const HOW = CAN_MOUNT ? 'a read-only tmpfs' : 'the preload: no tmpfs can be mounted here';
let compacted: string;

beforeAll(async () => {
  compacted = join(tempDir('unwritable'), 'compacted.jsonl');
  expect((await runMain(['compact', INPUT, '--out', compacted])).code).toBe(0);
});

/** A folder nothing can be written in, and the `runCli` options that make it so. */
function readOnlyFolder(): { dir: string; options: Parameters<typeof runCli>[1] } {
  if (CAN_MOUNT) return { dir: mountTmpfs(64 * 1024, { readOnly: true }).dir, options: {} };
  const dir = tempDir('read-only');
  return { dir, options: cliFaults({ readOnly: { under: dir } }) };
}

/** Each command with its arguments writing into `dir`, and the path its E_IO names. */
const COMMANDS: [string, (dir: string) => string[], (dir: string) => string][] = [
  ['run', (d) => ['run', INPUT, '--out', d, '--quiet'], (d) => join(d, '.shards')],
  ['compact', (d) => ['compact', INPUT, '--out', join(d, 'c.jsonl')], (d) => join(d, 'c.jsonl.work')],
  ['convert', (d) => ['convert', INPUT, '--out', join(d, 'c.jsonl')], (d) => join(d, 'c.jsonl')],
  ['eval', (d) => ['eval', INPUT, '--out', d, '--strategy', 'dedup-tools'], (d) => join(d, 'lost.jsonl')],
  ['simulate', (d) => ['simulate', INPUT, '--out', d, '--policy', 'none'], (d) => join(d, 'simulate.json')],
  ['tune', (d) => ['tune', INPUT, '--out', d], (d) => join(d, 'candidates')],
  ['restore', (d) => ['restore', compacted, '--out', join(d, 'r.jsonl')], (d) => join(d, 'r.jsonl')],
  ['stats', (d) => ['stats', INPUT, '--html', join(d, 'stats.html')], (d) => join(d, 'stats.html')],
];

describe(`an output that cannot be written (${HOW})`, () => {
  for (const [name, args, failing] of COMMANDS) {
    it(`${name} ends with E_IO, the path and EROFS, exit 74`, async () => {
      const { dir, options } = readOnlyFolder();
      // On a read-only tmpfs nothing needs a process of its own: the CLI's main runs here (disk-full.test.ts runs the
      // built binary into E_IO and exit 74). The preload's EROFS patches a whole process, so it needs the built CLI.
      const result = CAN_MOUNT ? await runMain(args(dir)) : await runCli(args(dir), options);
      expect(result.stderr).toBe(`tcompact ${name}: E_IO: cannot write ${failing(dir)}: read-only file system (EROFS)\n`);
      expect(result.code).toBe(74);
    });
  }
});
