import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isSystemError, writeError } from '../errors.js';

/**
 * `mkdir -p` for an output folder; a failure is E_IO naming `path` with the system's reason. Node's recursive mkdir
 * reports a folder it could not create (read-only file system, disk full, no permission) as ENOENT, from a stat it
 * makes after the failure: the real reason comes from creating the first missing folder alone.
 */
export async function makeDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (err) {
    if (!isSystemError(err) || err.code !== 'ENOENT') throw writeError(err, path);
    try {
      await mkdir(await _firstMissing(path)).catch((again: unknown) => {
        if (!isSystemError(again) || again.code !== 'EEXIST') throw again;
      });
      await mkdir(path, { recursive: true });
    } catch (real) {
      throw writeError(real, path);
    }
  }
}

/** The outermost folder of `path` that does not exist (`path` itself when its parent does). */
async function _firstMissing(path: string): Promise<string> {
  let missing = resolve(path);
  while (dirname(missing) !== missing && !(await _exists(dirname(missing)))) missing = dirname(missing);
  return missing;
}

async function _exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
