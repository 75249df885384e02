import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../sqlite/database.js';
import { listDir, statOf, timeOf } from './_files.js';
import type { AgentName, NotRead, Scan, Session } from './types.js';

/**
 * The sessions inside agents' SQLite stores. Discovery reads each store as its reader does (the database and the
 * committed frames of its WAL, in memory, never written) and lists each session in it, so `--since`, `--until` and
 * `--project` select sessions, not whole stores. A store that cannot be read (a write in progress, a file cut
 * mid-page) is listed as not read, with the reason.
 */

/** What a store's session table gives discovery: its id, times (ms or s since the epoch) and projects. */
export interface StoredSession {
  id: string;
  start: unknown;
  end: unknown;
  projects: unknown[];
  /** The bytes of its rows (what `bytes` reports). */
  bytes: unknown;
}

/** The stores of a folder whose name passes `test`, each with its sessions; unreadable ones counted as not read. */
export async function scanStores(agent: AgentName, dir: string, test: (name: string) => boolean, list: (store: SqliteStore) => StoredSession[]): Promise<Scan> {
  const sessions: Session[] = [];
  const failed: string[] = [];
  for (const entry of await listDir(dir)) {
    if (!entry.isFile() || !test(entry.name)) continue;
    const file = join(dir, entry.name);
    const opened = await openSqliteStore(file);
    if (!opened.ok) {
      failed.push(`${entry.name}: ${opened.error.message.replace(`${file}: `, '')}`);
      continue;
    }
    try {
      const info = await statOf(file);
      const wal = await statOf(`${file}-wal`);
      const written = Math.max(info?.mtimeMs ?? 0, wal?.mtimeMs ?? 0);
      for (const s of list(opened.value)) {
        const start = timeOf(s.start);
        sessions.push({
          agent,
          files: [file],
          store: { file, session: s.id },
          bytes: typeof s.bytes === 'number' ? s.bytes : 0,
          start: start ?? written,
          startFrom: start === undefined ? 'file' : 'session',
          end: Math.max(timeOf(s.end) ?? start ?? written, start ?? 0),
          projects: s.projects.filter((p): p is string => typeof p === 'string' && p !== ''),
        });
      }
    } catch (err) {
      failed.push(`${entry.name}: ${(err as Error).message.replace(`${file}: `, '')}`);
    } finally {
      opened.value.close();
    }
  }
  const notRead: NotRead[] = failed.map((reason) => ({ files: 1, bytes: 0, reason }));
  return { sessions, notRead };
}
