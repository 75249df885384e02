import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { runMain } from '../helpers/cli-in-process.js';
import { CAN_MOUNT, mountTmpfs } from '../helpers/small-disk.js';
import {
  type CliResult,
  SMALL_SHARD_BYTES,
  TEST_STRATEGIES,
  cliFaults,
  shardedRunArgs,
  outputDigest,
  readReport,
  realLines,
  runCli,
  tempDir,
} from '../pipeline/helpers.js';

/**
 * RELIABILITY 20 with the built CLI: an output disk that fills up mid-run ends the run with one line naming `E_IO`, the
 * path and the system's reason, exit 74 (EX_IOERR), no stack and no final or partial file; once there is room,
 * `--resume` gives the bytes of an uninterrupted run on a roomy disk. The full disk is a real tmpfs where this process
 * may mount one (root, as in CI), else the fault preload's byte budget. The cases that need one writer to fail (the
 * merge, the journal, a shard commit) use the preload everywhere.
 */
const dir = tempDir('disk-full');
const archive = join(dir, 'real.jsonl');
const args = (out: string): string[] => shardedRunArgs(archive, out);
const FINAL_FILES = ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl', 'report.json', 'report.md', 'report.html'];
let expected: Record<string, string>;
let roomy: { transcripts: number; journal: number };

beforeAll(async () => {
  // Real transcripts, and two lines that fail, so errors.jsonl has something to compare too. Half of the archive the
  // interrupt tests read still makes more shards than the commit fault's fifth: every run here reads it twice.
  const lines = await realLines({ maxLineBytes: 30_000, count: 50 });
  lines.splice(20, 0, '{"id": "broken", "messages": [');
  lines.splice(35, 0, '{"id": "no-messages"}');
  writeFileSync(archive, lines.map((l) => `${l}\n`).join(''));
  const out = join(dir, 'roomy');
  const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
  expect((await runPipeline({ inputs: [archive], outDir: out, config, workers: 2, shardBytes: SMALL_SHARD_BYTES })).status).toBe('done');
  expected = outputDigest(out);
  expect(readReport(out).lines.failed).toBe(2);
  expect(readReport(out).execution.shards).toBeGreaterThan(5);
  roomy = { transcripts: statSync(join(out, 'transcripts.jsonl')).size, journal: statSync(join(out, 'journal.jsonl')).size };
});

/** One line on stderr, `E_IO`, the path and the system's reason, exit 74 and no stack; returns that line. */
function expectIoError(result: CliResult, reason: string): string {
  expect(result.code).toBe(74);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^tcompact run: E_IO: /);
  expect(lines[0]).toContain(reason);
  return lines[0];
}

/** No final file and no temporary one: only the journal and the committed shards a resume continues from. */
function expectNothingFinal(out: string): void {
  for (const name of FINAL_FILES) expect(existsSync(join(out, name)), name).toBe(false);
  const shards = existsSync(join(out, '.shards')) ? readdirSync(join(out, '.shards')) : [];
  expect([...readdirSync(out), ...shards].filter((n) => n.includes('.tmp-'))).toEqual([]);
}

/** The journal ends on a complete line, and every shard it lists has its file. */
function expectJournalConsistent(out: string): number {
  const text = readFileSync(join(out, 'journal.jsonl'), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const shards = text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; shard?: { index: number } })
    .filter((e) => e.type === 'shard');
  for (const e of shards) expect(existsSync(join(out, '.shards', `${String(e.shard?.index).padStart(6, '0')}.shard`))).toBe(true);
  return shards.length;
}

describe('a disk that fills up mid-run (RELIABILITY 20)', () => {
  it(`ends with E_IO, the path and "no space left on device", exit 74, no final file; --resume with room gives the roomy run's bytes (${CAN_MOUNT ? 'a real tmpfs' : 'the preload byte budget: no tmpfs can be mounted here'})`, async () => {
    // Half the size of transcripts.jsonl: the shards and the merged output need twice that.
    const space = Math.floor(roomy.transcripts / 2);
    let out: string;
    let full: CliResult;
    let makeRoom: () => void;
    if (CAN_MOUNT) {
      const disk = mountTmpfs(space);
      out = join(disk.dir, 'out');
      // The disk is really full, so the CLI's main in this process meets it as the binary would; the cases below run
      // the built binary (their faults are the preload's) into the same E_IO line and exit 74.
      full = await runMain(args(out));
      makeRoom = () => disk.resize(16 * roomy.transcripts);
    } else {
      const base = tempDir('disk-full-budget');
      out = join(base, 'out');
      full = await runCli(args(out), cliFaults({ enospc: { under: base, afterBytes: space } }));
      makeRoom = () => undefined;
    }
    const line = expectIoError(full, 'no space left on device (ENOSPC)');
    expect(line).toMatch(new RegExp(`cannot write ${out}/\\S+: no space left on device \\(ENOSPC\\)`));
    expectNothingFinal(out);
    expectJournalConsistent(out);

    makeRoom();
    const resumed = await runMain([...args(out), '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(1);
    expect(outputDigest(out)).toEqual(expected);
    expect(existsSync(join(out, '.shards'))).toBe(false);
  });

  it('names transcripts.jsonl when the merge into it fails, keeps the committed shards, and a resume reuses them', async () => {
    const base = tempDir('disk-full-merge');
    const out = join(base, 'out');
    const full = await runCli(args(out), cliFaults({ enospc: { under: base, match: 'transcripts.jsonl', afterBytes: Math.floor(roomy.transcripts / 2) } }));
    expect(expectIoError(full, 'no space')).toBe(`tcompact run: E_IO: cannot write ${out}/transcripts.jsonl: no space left on device (ENOSPC)`);
    expectNothingFinal(out);
    const committed = expectJournalConsistent(out);
    expect(committed).toBeGreaterThan(0);

    const resumed = await runMain([...args(out), '--resume']);
    expect(resumed.code).toBe(1);
    expect(outputDigest(out)).toEqual(expected);
    expect(readReport(out).execution.reusedShards).toBe(committed);
  });

  it('names the journal when an append fails, leaves it ending on a complete entry, and a resume finishes', async () => {
    const base = tempDir('disk-full-journal');
    const out = join(base, 'out');
    const full = await runCli(args(out), cliFaults({ enospc: { under: base, match: 'journal.jsonl', afterBytes: Math.floor(roomy.journal / 2) } }));
    const line = expectIoError(full, 'no space');
    expect(line).toMatch(
      new RegExp(
        `^tcompact run: E_IO: cannot commit shard \\d+ \\(.*\\): cannot write ${out}/journal\\.jsonl: no space left on device \\(ENOSPC\\); nothing of this shard was kept`,
      ),
    );
    expectNothingFinal(out);
    expectJournalConsistent(out);

    const resumed = await runMain([...args(out), '--resume']);
    expect(resumed.code).toBe(1);
    expect(outputDigest(out)).toEqual(expected);
  });

  it('fails a shard whose commit hits ENOSPC without keeping any of it, and a resume succeeds', async () => {
    const out = join(tempDir('disk-full-commit'), 'out');
    const full = await runCli(args(out), cliFaults({ enospcOnCommit: [4] }));
    expect(expectIoError(full, 'no space')).toMatch(
      /E_IO: cannot commit shard 4 \(.*\): cannot write .*000004\.shard: no space left on device \(ENOSPC\); nothing of this shard was kept.*run again with --resume/,
    );
    expectNothingFinal(out);
    expect(existsSync(join(out, '.shards', '000004.shard'))).toBe(false);
    expectJournalConsistent(out);

    const resumed = await runMain([...args(out), '--resume']);
    expect(resumed.code).toBe(1);
    expect(outputDigest(out)).toEqual(expected);
  });
});
