import type { Dirent, Stats } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Read-only file access for discovery: listings, sizes and the first bytes of a file. Nothing here writes, and a
 * folder or file that vanishes or cannot be read while an agent works in it is taken as absent.
 */

/** How much of a session file discovery reads for its start time and project: the first records, never the rest. */
export const HEAD_BYTES = 64 * 1024;

/** The entries of a folder sorted by name (code-unit order, the same on every platform); none when it is not there. */
export async function listDir(dir: string): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

export async function statOf(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await statOf(path))?.isDirectory() ?? false;
}

/** The first HEAD_BYTES of a file as text (invalid UTF-8 replaced), or '' when it cannot be read. */
export async function readHead(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/** The complete JSON Lines records of a head (the cut last line is dropped); lines that do not parse are skipped. */
export function headRecords(head: string): Record<string, unknown>[] {
  const lines = head.split('\n');
  if (head.length >= HEAD_BYTES) lines.pop();
  const out: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) out.push(value as Record<string, unknown>);
    } catch {
      // A line cut by a writer still at work, or not JSON: the reader reports it; discovery looks at the others.
    }
  }
  return out;
}

/** A small JSON file (an index, a marker) parsed whole, or undefined when absent, too large or not JSON. */
export async function readSmallJson(file: string, maxBytes = 16 * 1024 * 1024): Promise<unknown> {
  const info = await statOf(file);
  if (!info?.isFile() || info.size > maxBytes) return undefined;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A small text file's trimmed content, or undefined. */
export async function readSmallText(file: string): Promise<string | undefined> {
  const info = await statOf(file);
  if (!info?.isFile() || info.size > 64 * 1024) return undefined;
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** A time as ms since the epoch: an ISO 8601 string, or a number of ms (or of seconds, below 10^11). */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/**
 * The files under a folder whose name passes `test`, recursively, in a fixed order: in each folder its files by
 * name, then its subfolders by name. Symbolic links to folders are not followed (no cycles).
 */
export async function* walkFiles(dir: string, test: (name: string) => boolean): AsyncGenerator<string> {
  const entries = await listDir(dir);
  for (const e of entries) if (e.isFile() && test(e.name)) yield join(dir, e.name);
  for (const e of entries) if (e.isDirectory()) yield* walkFiles(join(dir, e.name), test);
}
