import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

const pending = new Set<string>();

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  pending.delete(dir);
}

/**
 * A fresh `tcompact-PREFIX-*` folder under the system temp folder. Made inside a test, it is removed when that test
 * ends, passed or failed; made at module level or in a hook, after the file's last test (test/setup-temp.ts).
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tcompact-${prefix}-`));
  pending.add(dir);
  try {
    onTestFinished(() => remove(dir));
  } catch {
    // Not inside a test: removeTempDirs() takes it after the file's tests.
  }
  return dir;
}

/** Removes every folder tempDir made that is still there. */
export function removeTempDirs(): void {
  for (const dir of [...pending]) remove(dir);
}
