import { access } from 'node:fs/promises';

/** Whether something is at `path` (any error, a missing file or a folder that cannot be searched, counts as no). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
