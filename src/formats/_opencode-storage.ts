import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TcompactError, type ErrorInfo, type Outcome } from '../errors.js';
import { isObject } from './_items.js';
import { readJsonDocument } from './_json-stream.js';

/**
 * OpenCode's own storage before its SQLite database (packages/opencode/src/storage/storage.ts, json-migration.ts): one
 * JSON file per record under `<data>/opencode/storage/`, a session's info in `session/<projectID>/<sessionID>.json`,
 * its messages in `message/<sessionID>/<messageID>.json`, each message's parts in `part/<messageID>/<partID>.json`.
 * Identifiers sort in creation order (OpenCode lists a folder sorted by key), so a session reads back as the
 * `{info, parts}` list `opencode export` writes.
 */

/** A session info file: in a `session/<projectID>/` folder, an object with `id`, `projectID` and no `messages`. */
export function isStorageSessionPath(file: string): boolean {
  return basename(dirname(dirname(file))) === 'session' && /\.json$/i.test(file);
}

export function isStorageSession(file: string, value: Record<string, unknown>): boolean {
  return isStorageSessionPath(file) && typeof value.id === 'string' && typeof value.projectID === 'string' && value.messages === undefined;
}

/**
 * The session's messages as `[{info, parts}]`, read from the storage folder that holds `file`. The session's files
 * together may not exceed `maxBytes` (--max-line-bytes: the session is one record, as an export is).
 */
export async function readStorageMessages(file: string, sessionId: string, maxBytes: number): Promise<Outcome<unknown[]>> {
  const storage = dirname(dirname(dirname(file)));
  let total = 0;
  const readAll = async (dir: string): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const name of await jsonFiles(dir)) {
      const path = join(dir, name);
      const value = async () => {
        total += (await stat(path)).size;
        if (total > maxBytes)
          throw new TcompactError('E_LINE_TOO_LONG', `session ${sessionId}: its storage files hold over ${maxBytes} bytes (--max-line-bytes)`);
        return readJsonDocument(path, maxBytes);
      };
      out.push(await value().catch((err: unknown) => Promise.reject(withFile(err, path))));
    }
    return out;
  };
  try {
    const messages: unknown[] = [];
    for (const info of await readAll(join(storage, 'message', sessionId))) {
      if (!isObject(info) || typeof info.id !== 'string') return { ok: false, error: schema(`a message of session ${sessionId} has no id`) };
      messages.push({ info, parts: await readAll(join(storage, 'part', info.id)) });
    }
    return { ok: true, value: messages };
  } catch (err) {
    if (TcompactError.isInstance(err)) return { ok: false, error: err.toInfo() };
    throw err;
  }
}

async function jsonFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => /\.json$/i.test(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TcompactError('E_IO', (err as Error).message);
  }
}

function withFile(err: unknown, file: string): unknown {
  if (TcompactError.isInstance(err)) return new TcompactError(err.code, `${file}: ${err.message}`);
  if (typeof (err as NodeJS.ErrnoException).syscall === 'string') return new TcompactError('E_IO', (err as Error).message);
  return err;
}

function schema(message: string): ErrorInfo {
  return { code: 'E_SCHEMA', message };
}
