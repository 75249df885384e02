import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** File names a directory walk takes as inputs. */
export const DATA_FILE = /\.(jsonl|json|traj)$/i;

/**
 * The data files under a directory, recursively, in a fixed order: in each directory its files by name, then its
 * subdirectories by name (so a Claude Code `<session>.jsonl` comes before `<session>/subagents/`). Only `.jsonl`,
 * `.json` and `.traj` files are inputs; other files (READMEs, licences) and entries whose name starts with a dot are
 * not. Symbolic links to directories are not followed (no cycles).
 */
export async function* walkDataFiles(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) dirs.push(entry.name);
    else if (entry.isFile() && DATA_FILE.test(entry.name)) files.push(entry.name);
    else if (entry.isSymbolicLink() && DATA_FILE.test(entry.name)) {
      const target = await stat(join(dir, entry.name)).catch(() => undefined);
      if (target?.isFile()) files.push(entry.name);
    }
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  for (const name of files.sort(byName)) yield join(dir, name);
  for (const name of dirs.sort(byName)) yield* walkDataFiles(join(dir, name));
}
