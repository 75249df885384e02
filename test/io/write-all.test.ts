import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAll } from '../../src/io/write-all.js';
import { tempDir } from '../helpers/temp-dir.js';

const pieces = ['{"ref":"a","json":', 'the line', '}\n', '', 'é 🙂 tail\n'].map((t) => Buffer.from(t, 'utf8'));

describe('writeAll', () => {
  it('writes the pieces in order at the position, then at the file position, empty pieces skipped', async () => {
    const path = join(tempDir('write-all'), 'out');
    const handle = await open(path, 'w+');
    try {
      let told = 0;
      await writeAll(handle, [Buffer.from('0123456789')], 0);
      await writeAll(handle, pieces, 4, (n) => (told += n));
      expect(told).toBe(Buffer.concat(pieces).length);
      expect(readFileSync(path, 'utf8')).toBe(`0123${Buffer.concat(pieces).toString('utf8')}`);
    } finally {
      await handle.close();
    }
  });

  it('resumes after short writes mid-piece, as a kernel may return them, and tells each byte once', async () => {
    const path = join(tempDir('write-all'), 'out');
    const real = await open(path, 'w');
    const calls: number[] = [];
    // At most 5 bytes a call, whatever the call.
    const short = {
      write: (b: Uint8Array, offset: number, length: number, position: number) => real.write(b, offset, Math.min(length, 5), position),
      writev: async (buffers: Uint8Array[], position: number) => {
        calls.push(buffers.length);
        const first = Buffer.concat(buffers).subarray(0, 5);
        return { bytesWritten: (await real.write(first, 0, first.length, position)).bytesWritten, buffers };
      },
    } as unknown as FileHandle;
    try {
      const told: number[] = [];
      await writeAll(short, pieces, 0, (n) => told.push(n));
      expect(readFileSync(path)).toEqual(Buffer.concat(pieces));
      expect(told.reduce((a, b) => a + b, 0)).toBe(Buffer.concat(pieces).length);
      expect(calls[0]).toBe(4);
    } finally {
      await real.close();
    }
  });
});
