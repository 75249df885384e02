import { describe, expect, it } from 'vitest';
import { TcompactError, errorInfoOf, writeError } from '../src/errors.js';

/** A failed system call as Node raises it: `CODE: reason, syscall`, with errno, code and syscall set. */
function systemError(code: string, errno: number, reason: string, syscall = 'write', path?: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: ${reason}, ${syscall}${path === undefined ? '' : ` '${path}'`}`) as NodeJS.ErrnoException;
  return Object.assign(err, { code, errno, syscall, ...(path === undefined ? {} : { path }) });
}

const PATH = '/data/out/transcripts.jsonl';

describe('writeError', () => {
  const cases: [string, NodeJS.ErrnoException, string][] = [
    ['ENOSPC', systemError('ENOSPC', -28, 'no space left on device'), 'no space left on device (ENOSPC)'],
    // libuv has no name for EDQUOT: Node reports it as UNKNOWN, with the errno.
    ['EDQUOT', systemError('UNKNOWN', -122, 'unknown error'), 'disk quota exceeded (EDQUOT)'],
    ['EROFS', systemError('EROFS', -30, 'read-only file system', 'open', `${PATH}.tmp-1-0-0`), 'read-only file system (EROFS)'],
    ['EACCES', systemError('EACCES', -13, 'permission denied', 'open', `${PATH}.tmp-1-0-0`), 'permission denied (EACCES)'],
    ['EIO', systemError('EIO', -5, 'i/o error', 'fsync'), 'i/o error (EIO)'],
  ];
  for (const [name, err, reason] of cases) {
    it(`turns ${name} into E_IO naming the path and the system's reason`, () => {
      const mapped = writeError(err, PATH);
      expect(TcompactError.isInstance(mapped)).toBe(true);
      expect((mapped as TcompactError).toInfo()).toEqual({ code: 'E_IO', message: `cannot write ${PATH}: ${reason}` });
      expect((mapped as TcompactError).cause).toBe(err);
    });
  }

  it('names EDQUOT from its code as well, where a platform reports it by name', () => {
    expect((writeError(systemError('EDQUOT', -122, 'disk quota exceeded'), PATH) as Error).message).toBe(`cannot write ${PATH}: disk quota exceeded (EDQUOT)`);
  });

  it('returns a TcompactError and an error of no system call as they are', () => {
    const named = new TcompactError('E_IO', 'cannot write /a: no space left on device (ENOSPC)');
    const bug = new TypeError('x is undefined');
    expect(writeError(named, PATH)).toBe(named);
    expect(writeError(bug, PATH)).toBe(bug);
  });
});

describe('errorInfoOf', () => {
  it('makes a failed system call E_IO with the call, its path and the reason', () => {
    expect(errorInfoOf(systemError('EROFS', -30, 'read-only file system', 'mkdir', '/ro/out'))).toEqual({
      code: 'E_IO',
      message: 'cannot mkdir /ro/out: read-only file system (EROFS)',
    });
    expect(errorInfoOf(systemError('ENOSPC', -28, 'no space left on device'))).toEqual({
      code: 'E_IO',
      message: 'cannot write: no space left on device (ENOSPC)',
    });
  });

  it('keeps the code of a TcompactError and makes anything else E_INTERNAL with its stack', () => {
    expect(errorInfoOf(new TcompactError('E_RESUME', 'changed'))).toEqual({ code: 'E_RESUME', message: 'changed' });
    const bug = new Error('oops');
    expect(errorInfoOf(bug)).toEqual({ code: 'E_INTERNAL', message: bug.stack });
  });
});
