import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TcompactError } from '../../src/errors.js';
import { makeDir } from '../../src/io/make-dir.js';
import { tempDir } from '../helpers/temp-dir.js';
import { canMount, mountTmpfs } from '../helpers/small-disk.js';

describe('makeDir', () => {
  it('makes every missing folder of the path, and accepts one that exists', async () => {
    const path = join(tempDir('make-dir'), 'a', 'b', 'c');
    await makeDir(path);
    await makeDir(path);
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it.skipIf(!canMount('makeDir on a read-only tmpfs'))(
    'reports a folder it cannot create with the real reason (EROFS), not the ENOENT of recursive mkdir',
    async () => {
      const disk = mountTmpfs(64 * 1024, { readOnly: true });
      const path = join(disk.dir, 'out', 'eval');
      const err = await makeDir(path).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(TcompactError.isInstance(err)).toBe(true);
      expect((err as TcompactError).toInfo()).toEqual({ code: 'E_IO', message: `cannot write ${path}: read-only file system (EROFS)` });
    },
  );
});
