import { join } from 'node:path';
import { isOpenCodeStore, openCodeStoreSessions } from '../../formats/opencode-db.js';
import { sessionOf } from '../_agent.js';
import { listDir, readSmallJson, timeOf } from '../_files.js';
import { pathsOf, xdgHome } from '../_paths.js';
import { scanStores } from '../_stores.js';
import type { AgentName, AgentSource, Scan, Session } from '../types.js';

/**
 * OpenCode keeps its data in `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode` on every platform, through
 * xdg-basedir: packages/opencode/src/global/index.ts). Sessions now live in a SQLite database there, `opencode.db` (or
 * `opencode-<channel>.db`, src/storage/db.ts), each session listed with its own times and folder. Versions before the
 * database kept one JSON file per record under `storage/` (src/storage/json-migration.ts reads them into the database
 * and leaves them in place): a session is its info file `storage/session/<project id>/<session id>.json`, which the
 * OpenCode reader assembles with its messages and parts.
 */
export const opencode: AgentSource = {
  agent: 'opencode',
  locations(environment) {
    const [data, origin] = xdgHome(environment, 'XDG_DATA_HOME', '.local/share');
    const dir = pathsOf(environment).join(data, 'opencode');
    return [
      { agent: 'opencode', kind: 'database', dir, origin, format: 'opencode-db' },
      { agent: 'opencode', kind: 'storage', dir, origin, format: 'opencode' },
    ];
  },
  async scan(location) {
    const databases = await databaseSessions('opencode', location.dir, /^opencode(-[\w.-]+)?\.db$/);
    if (location.kind === 'database') return databases;
    // OpenCode's move to its database copies the JSON storage in and leaves it in place: a session the database holds
    // is read from there, not twice.
    const inDatabase = new Set(databases.sessions.map((s) => s.store?.session));
    const sessions: Session[] = [];
    const root = join(location.dir, 'storage', 'session');
    for (const project of await listDir(root)) {
      if (!project.isDirectory()) continue;
      for (const entry of await listDir(join(root, project.name))) {
        if (!entry.isFile() || !entry.name.endsWith('.json') || inDatabase.has(entry.name.slice(0, -'.json'.length))) continue;
        const file = join(root, project.name, entry.name);
        const info = (await readSmallJson(file)) as { directory?: unknown; time?: { created?: unknown } } | undefined;
        const session = await sessionOf('opencode', [file], {
          start: timeOf(info?.time?.created),
          alsoCounts: await storedRecords(location.dir, entry.name.slice(0, -'.json'.length)),
          projects: [typeof info?.directory === 'string' ? info.directory : undefined, project.name],
        });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};

/**
 * Kilo CLI, OpenCode's fork, keeps OpenCode's database as `$XDG_DATA_HOME/kilo/kilo.db` (`kilo-<channel>.db`;
 * Kilo-Org/kilocode packages/opencode/src/global/index.ts and storage/db.ts name the app `kilo`).
 */
export const kilo: AgentSource = {
  agent: 'kilo',
  locations(environment) {
    const [data, origin] = xdgHome(environment, 'XDG_DATA_HOME', '.local/share');
    return [{ agent: 'kilo', kind: 'database', dir: pathsOf(environment).join(data, 'kilo'), origin, format: 'opencode-db' }];
  },
  scan: (location) => databaseSessions('kilo', location.dir, /^kilo(-[\w.-]+)?\.db$/),
};

function databaseSessions(agent: AgentName, dir: string, name: RegExp): Promise<Scan> {
  return scanStores(
    agent,
    dir,
    (file) => name.test(file),
    (store) => {
      if (!isOpenCodeStore(store)) throw new Error('not an OpenCode database (no session, message and part tables)');
      return openCodeStoreSessions(store);
    },
  );
}

/** The message and part files of a stored session, which the OpenCode reader reads with it. */
async function storedRecords(dir: string, sessionId: string): Promise<string[]> {
  const messages = join(dir, 'storage', 'message', sessionId);
  const out: string[] = [];
  for (const m of await listDir(messages)) {
    if (!m.isFile() || !m.name.endsWith('.json')) continue;
    out.push(join(messages, m.name));
    const parts = join(dir, 'storage', 'part', m.name.slice(0, -'.json'.length));
    for (const p of await listDir(parts)) if (p.isFile()) out.push(join(parts, p.name));
  }
  return out;
}
