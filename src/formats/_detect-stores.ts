import { openSqliteStore } from '../sqlite/database.js';
import { isCrushStore } from './crush.js';
import { isGooseStore } from './goose-db.js';
import { isOpenCodeStore } from './opencode-db.js';
import type { FormatName } from './types.js';
import { isZedStore } from './zed.js';
import { isHermesStore } from './hermes.js';

export type StoreDetection = { ok: true; format: FormatName } | { ok: false; code: 'E_FORMAT' | 'E_SQLITE' | 'E_IO'; message: string };

/**
 * The agent store a SQLite database is, asked of each store reader by its own schema (tables and the columns it
 * reads), never by a table name alone: Crush and goose both have `sessions` and `messages`. A store that cannot be
 * read is its E_SQLITE error; one that is no agent's store is E_FORMAT listing its tables.
 */
export async function detectStore(file: string): Promise<StoreDetection> {
  const opened = await openSqliteStore(file);
  // The caller names the file before the message.
  const unnamed = (message: string) => (message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message);
  if (!opened.ok) return { ok: false, code: opened.error.code === 'E_IO' ? 'E_IO' : 'E_SQLITE', message: unnamed(opened.error.message) };
  const store = opened.value;
  try {
    if (isOpenCodeStore(store)) return { ok: true, format: 'opencode-db' };
    if (isGooseStore(store)) return { ok: true, format: 'goose-db' };
    if (isCrushStore(store)) return { ok: true, format: 'crush' };
    if (isZedStore(store)) return { ok: true, format: 'zed' };
    if (isHermesStore(store)) return { ok: true, format: 'hermes' };
    const tables = [...store.tables().keys()];
    return { ok: false, code: 'E_FORMAT', message: `unknown format: a SQLite database whose tables [${tables.slice(0, 12).join(', ')}] are no agent's store` };
  } catch (err) {
    return { ok: false, code: 'E_SQLITE', message: unnamed((err as Error).message) };
  } finally {
    store.close();
  }
}
