import type { FileHandle } from 'node:fs/promises';

/**
 * Writes `parts` in order, at `position` (null: at the file's own position), as few system calls as the kernel takes
 * (writev, which libuv splits at the kernel's limit on pieces per call), resuming after a short write. `written` hears
 * of every byte written, so a caller that keeps the file's size stays right when a later call fails.
 */
export async function writeAll(
  handle: FileHandle,
  parts: readonly Uint8Array[],
  position: number | null,
  written: (bytes: number) => void = () => undefined,
): Promise<void> {
  let rest = parts.filter((p) => p.byteLength > 0);
  while (rest.length > 0) {
    const { bytesWritten } =
      rest.length === 1 ? await handle.write(rest[0], 0, rest[0].byteLength, position) : await handle.writev(rest, position ?? undefined);
    if (bytesWritten <= 0) throw new Error('the system wrote no bytes');
    written(bytesWritten);
    if (position !== null) position += bytesWritten;
    rest = after(rest, bytesWritten);
  }
}

/** `parts` less their first `n` bytes. */
function after(parts: Uint8Array[], n: number): Uint8Array[] {
  let i = 0;
  while (i < parts.length && n >= parts[i].byteLength) n -= parts[i++].byteLength;
  if (i === parts.length) return [];
  return [parts[i].subarray(n), ...parts.slice(i + 1)];
}
