import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TcompactError } from '../../src/errors.js';
import { AtomicFile, writeFileAtomic } from '../../src/io/atomic-file.js';
import { tempDir } from '../helpers/temp-dir.js';
import { canMount, mountTmpfs } from '../helpers/small-disk.js';

/** The E_IO a promise rejects with, as data. */
async function ioFailure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TcompactError.isInstance(err), String(err)).toBe(true);
  return (err as TcompactError).toInfo();
}

describe('AtomicFile', () => {
  it('shows nothing under the final name until renamed, then the whole file', async () => {
    const path = join(tempDir('atomic'), 'out.jsonl');
    const file = await AtomicFile.create(path);
    await file.write('a\n');
    await file.write(Buffer.from('b\n'));
    expect(existsSync(path)).toBe(false);
    await file.rename();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
  });

  it('keeps no temporary file after discard', async () => {
    const dir = tempDir('atomic');
    const file = await AtomicFile.create(join(dir, 'out.jsonl'));
    await file.write('partial');
    await file.discard();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(!canMount('AtomicFile on a full and a read-only tmpfs'))('AtomicFile on a full and a read-only tmpfs', () => {
  it('fails a write on a full disk with E_IO naming the final path and ENOSPC, and discard leaves nothing', async () => {
    const disk = mountTmpfs(64 * 1024);
    const path = join(disk.dir, 'transcripts.jsonl');
    const file = await AtomicFile.create(path);
    expect(await ioFailure(file.write(Buffer.alloc(256 * 1024, 'x')))).toEqual({
      code: 'E_IO',
      message: `cannot write ${path}: no space left on device (ENOSPC)`,
    });
    await file.discard();
    expect(readdirSync(disk.dir)).toEqual([]);
  });

  it('fails on a read-only file system with E_IO naming the final path and EROFS', async () => {
    const disk = mountTmpfs(64 * 1024, { readOnly: true });
    const path = join(disk.dir, 'report.json');
    expect(await ioFailure(writeFileAtomic(path, ['{}\n']))).toEqual({ code: 'E_IO', message: `cannot write ${path}: read-only file system (EROFS)` });
  });

  it('leaves the previous file in place when writing its replacement fails', async () => {
    const disk = mountTmpfs(64 * 1024);
    const path = join(disk.dir, 'report.md');
    writeFileSync(path, 'before\n');
    expect((await ioFailure(writeFileAtomic(path, [Buffer.alloc(256 * 1024, 'x')]))).message).toContain('no space left on device (ENOSPC)');
    expect(readFileSync(path, 'utf8')).toBe('before\n');
    expect(readdirSync(disk.dir)).toEqual(['report.md']);
  });
});
