import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

function mount(args: string[]): boolean {
  try {
    execFileSync('mount', args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    // Still busy (a child process not yet gone): detach it now, the kernel frees it when the last file closes.
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  }
}

/** True where this process may mount a tmpfs (root, as here and in CI); probed once by mounting and unmounting one. */
export const CAN_MOUNT: boolean = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'tcompact-mount-probe-'));
  try {
    if (!mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir])) return false;
    unmount(dir);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

const noticed = new Set<string>();

/** {@link CAN_MOUNT}; when false, prints once per suite a one-line notice that it is skipped and why. */
export function canMount(suite: string): boolean {
  if (CAN_MOUNT) return true;
  if (!noticed.has(suite)) {
    noticed.add(suite);
    console.warn(`skipped: ${suite} mounts a tmpfs, which this process may not do (run as root, as CI does)`);
  }
  return false;
}

/** A real file system of a given size on a fresh folder under the system temp folder. */
export interface SmallDisk {
  dir: string;
  /** Remounts it with room for `bytes` (the disk freed up). */
  resize(bytes: number): void;
}

/**
 * A tmpfs of `bytes` (read-only with `readOnly`), mounted inside a test (needs {@link CAN_MOUNT}); unmounted and its
 * folder removed when the test ends, passed or failed.
 */
export function mountTmpfs(bytes: number, options: { readOnly?: boolean } = {}): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'tcompact-disk-'));
  const size = `size=${Math.ceil(bytes / 4096) * 4096}`;
  if (!mount(['-t', 'tmpfs', '-o', options.readOnly ? `ro,${size}` : size, 'tmpfs', dir])) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot mount a tmpfs on ${dir}`);
  }
  onTestFinished(() => {
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    resize(next) {
      execFileSync('mount', ['-o', `remount,size=${Math.ceil(next / 4096) * 4096}`, dir], { stdio: 'ignore' });
    },
  };
}
